// The litert-go chat page: talks to the server's OpenAI-compatible API,
// streams replies, keeps conversations in localStorage. No dependencies.
"use strict";

const STORE = "litert-go.conversations";
const SETTINGS = "litert-go.settings";
const $ = (id) => document.getElementById(id);

const state = {
  conversations: [], // {id, title, messages: [...], updated}
  current: null,     // id
  controller: null,  // AbortController of the reply streaming now
  attachments: [],   // data: URLs for the next message
  model: "",
};

// --- storage --------------------------------------------------------------

function load() {
  try { state.conversations = JSON.parse(localStorage.getItem(STORE)) || []; } catch { state.conversations = []; }
  let settings = {};
  try { settings = JSON.parse(localStorage.getItem(SETTINGS)) || {}; } catch { settings = {}; }
  for (const el of document.querySelectorAll("[data-setting]")) {
    if (settings[el.id] !== undefined) el.value = settings[el.id];
  }
}

function save() {
  try {
    localStorage.setItem(STORE, JSON.stringify(state.conversations));
  } catch (e) {
    showError("Could not save the conversations in the browser: " + e.message);
  }
}

function saveSettings() {
  const settings = {};
  for (const el of document.querySelectorAll("[data-setting]")) settings[el.id] = el.value;
  localStorage.setItem(SETTINGS, JSON.stringify(settings));
}

function conversation() {
  return state.conversations.find((c) => c.id === state.current);
}

function newConversation() {
  const c = { id: Date.now().toString(36) + Math.random().toString(36).slice(2, 6), title: "New chat", messages: [], updated: Date.now() };
  state.conversations.unshift(c);
  state.current = c.id;
  save();
  render();
  return c;
}

// --- rendering ------------------------------------------------------------

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function renderSidebar() {
  const list = $("conversations");
  list.replaceChildren();
  for (const c of state.conversations) {
    const li = el("li", c.id === state.current ? "active" : "");
    const title = el("span", "title", c.title);
    title.addEventListener("click", () => { if (!state.controller) { state.current = c.id; render(); } });
    const del = el("button", "delete", "×");
    del.type = "button";
    del.title = "Delete this conversation";
    del.addEventListener("click", () => {
      if (state.controller && c.id === state.current) return;
      state.conversations = state.conversations.filter((x) => x !== c);
      if (state.current === c.id) state.current = state.conversations[0] ? state.conversations[0].id : null;
      save();
      render();
    });
    li.append(title, del);
    list.append(li);
  }
}

// renderMessage returns the element of message m (index i of c).
function renderMessage(c, m, i) {
  const div = el("div", "msg " + m.role);
  div.dataset.index = i;
  if (m.role === "tool") {
    const card = el("div", "tool-result");
    card.append(el("div", "tool-head", "result of " + (m.name || "tool")), el("pre", "", m.content));
    div.append(card);
    return div;
  }
  if (m.reasoning) {
    const d = el("details", "reasoning");
    d.append(el("summary", "", "Reasoning"), el("div", "reasoning-text", m.reasoning));
    div.append(d);
  }
  if (m.images) {
    for (const src of m.images) {
      const img = el("img", "thumb");
      img.src = src;
      img.alt = "attached image";
      div.append(img);
    }
  }
  if (m.content || !m.tool_calls) div.append(el("div", "content", m.content || ""));
  if (m.tool_calls && m.tool_calls.length) {
    const calls = el("div", "tool-calls");
    for (const call of m.tool_calls) {
      const card = el("div", "tool-call");
      card.dataset.name = call.function.name;
      card.append(el("div", "tool-head", "call " + call.function.name), el("pre", "tool-args", call.function.arguments));
      calls.append(card);
    }
    div.append(calls);
    if (i === c.messages.length - 1 && !state.controller && m.role === "assistant") div.append(resultForm(c, m));
  }
  if (m.stats) div.append(el("div", "stats", m.stats));
  return div;
}

// resultForm asks for the results of the calls of m, then continues.
function resultForm(c, m) {
  const form = el("form", "results");
  const inputs = [];
  for (const call of m.tool_calls) {
    const label = el("label", "", "Result of " + call.function.name);
    const ta = el("textarea", "tool-result-input");
    ta.rows = 2;
    ta.placeholder = '{"ok": true}';
    label.append(ta);
    form.append(label);
    inputs.push([call, ta]);
  }
  const send = el("button", "", "Send results");
  send.type = "submit";
  form.append(send);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    for (const [call, ta] of inputs) {
      c.messages.push({ role: "tool", tool_call_id: call.id, name: call.function.name, content: ta.value || "{}" });
    }
    save();
    reply(c);
  });
  return form;
}

function renderMessages() {
  const box = $("messages");
  box.replaceChildren();
  const c = conversation();
  if (!c) return;
  c.messages.forEach((m, i) => box.append(renderMessage(c, m, i)));
  box.scrollTop = box.scrollHeight;
}

function render() {
  renderSidebar();
  renderMessages();
  const busy = !!state.controller;
  $("send").hidden = busy;
  $("stop").hidden = !busy;
}

function showError(msg) {
  const e = $("error");
  e.textContent = msg;
  e.hidden = !msg;
}

// --- the API --------------------------------------------------------------

function headers() {
  const h = { "Content-Type": "application/json" };
  const key = $("api_key").value.trim();
  if (key) h["Authorization"] = "Bearer " + key;
  return h;
}

function num(id) {
  const v = $(id).value.trim();
  return v === "" ? undefined : Number(v);
}

// request builds the chat request for conversation c.
function request(c) {
  const messages = [];
  const system = $("system").value.trim();
  if (system) messages.push({ role: "system", content: system });
  for (const m of c.messages) {
    if (m.role === "tool") {
      messages.push({ role: "tool", tool_call_id: m.tool_call_id, content: m.content });
    } else if (m.role === "assistant") {
      const out = { role: "assistant", content: m.content || "" };
      if (m.tool_calls && m.tool_calls.length) out.tool_calls = m.tool_calls;
      messages.push(out);
    } else if (m.images && m.images.length) {
      const parts = [{ type: "text", text: m.content }];
      for (const url of m.images) parts.push({ type: "image_url", image_url: { url } });
      messages.push({ role: "user", content: parts });
    } else {
      messages.push({ role: m.role, content: m.content });
    }
  }
  const body = { model: state.model || "default", messages, stream: true, stream_options: { include_usage: true } };
  for (const k of ["temperature", "top_p", "top_k", "min_p", "repeat_penalty", "max_tokens", "seed"]) {
    const v = num(k);
    if (v !== undefined && !Number.isNaN(v)) body[k] = v;
  }
  const stops = $("stop_strings").value.split("\n").filter((s) => s !== "");
  if (stops.length) body.stop = stops.slice(0, 4);
  const tools = $("tools").value.trim();
  if (tools) {
    body.tools = JSON.parse(tools); // a SyntaxError is shown to the user
    const choice = $("tool_choice").value.trim();
    if (choice === "auto" || choice === "none" || choice === "required") body.tool_choice = choice;
    else if (choice) body.tool_choice = { type: "function", function: { name: choice } };
  }
  return body;
}

// events yields the data of each server-sent event of a response.
async function* events(resp) {
  const reader = resp.body.getReader();
  const dec = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      for (const line of block.split("\n")) {
        if (line.startsWith("data: ")) yield line.slice(6);
      }
    }
  }
}

// reply streams the assistant's answer to conversation c.
async function reply(c) {
  showError("");
  let body;
  try {
    body = request(c);
  } catch (e) {
    showError("The tools are not valid JSON: " + e.message);
    return;
  }
  const m = { role: "assistant", content: "", reasoning: "", tool_calls: null, stats: "" };
  c.messages.push(m);
  state.controller = new AbortController();
  render();
  const node = () => $("messages").lastElementChild;
  const start = performance.now();
  let first = 0;
  let chunks = 0;
  let usage = null;
  let finish = "";
  const update = () => {
    const fresh = renderMessage(c, m, c.messages.length - 1);
    fresh.classList.add("streaming");
    fresh.dataset.chunks = chunks;
    node().replaceWith(fresh);
    $("messages").scrollTop = $("messages").scrollHeight;
  };
  try {
    const resp = await fetch("/v1/chat/completions", { method: "POST", headers: headers(), body: JSON.stringify(body), signal: state.controller.signal });
    if (!resp.ok) {
      let msg = resp.status + " " + resp.statusText;
      try { msg = (await resp.json()).error.message; } catch { /* not JSON */ }
      throw new Error(msg);
    }
    for await (const data of events(resp)) {
      if (data === "[DONE]") break;
      const ev = JSON.parse(data);
      if (ev.error) throw new Error(ev.error.message);
      if (ev.usage) usage = ev.usage;
      for (const ch of ev.choices || []) {
        const d = ch.delta || {};
        if (ch.finish_reason) finish = ch.finish_reason;
        let changed = false;
        if (d.content) { m.content += d.content; changed = true; }
        if (d.reasoning_content) { m.reasoning += d.reasoning_content; changed = true; }
        for (const tc of d.tool_calls || []) {
          m.tool_calls = m.tool_calls || [];
          const at = tc.index || 0;
          if (!m.tool_calls[at]) m.tool_calls[at] = { id: tc.id || "", type: "function", function: { name: "", arguments: "" } };
          const call = m.tool_calls[at];
          if (tc.id) call.id = tc.id;
          if (tc.function && tc.function.name) call.function.name = tc.function.name;
          if (tc.function && tc.function.arguments) call.function.arguments += tc.function.arguments;
          changed = true;
        }
        if (changed) {
          if (!first) first = performance.now();
          chunks++;
          update();
        }
      }
    }
  } catch (e) {
    if (e.name === "AbortError") finish = "stopped";
    else showError(e.message);
  }
  const end = performance.now();
  const parts = [];
  if (usage) {
    parts.push(usage.completion_tokens + " tokens");
    if (first && end > first && usage.completion_tokens > 1) parts.push(((usage.completion_tokens - 1) / ((end - first) / 1000)).toFixed(1) + " tok/s");
    parts.push(usage.prompt_tokens + " prompt (" + ((usage.prompt_tokens_details || {}).cached_tokens || 0) + " cached)");
  } else if (chunks) {
    parts.push(chunks + " pieces");
  }
  if (first) parts.push("first token " + ((first - start) / 1000).toFixed(2) + " s");
  if (finish) parts.push(finish);
  m.stats = parts.join(" · ");
  if (!m.reasoning) delete m.reasoning;
  if (!m.tool_calls) delete m.tool_calls;
  state.controller = null;
  c.updated = Date.now();
  save();
  render();
  const last = $("messages").lastElementChild;
  if (last) last.dataset.chunks = chunks;
  if (last && finish) last.dataset.finish = finish;
}

async function send(text) {
  if (state.controller) return;
  const c = conversation() || newConversation();
  const m = { role: "user", content: text };
  if (state.attachments.length) m.images = state.attachments;
  state.attachments = [];
  $("attachments").replaceChildren();
  c.messages.push(m);
  if (c.title === "New chat") c.title = text.slice(0, 40) || "Chat";
  save();
  await reply(c);
}

async function loadModel() {
  try {
    const resp = await fetch("/v1/models", { headers: headers() });
    if (!resp.ok) return;
    const list = await resp.json();
    if (list.data && list.data.length) {
      state.model = list.data[0].id;
      $("model-name").textContent = state.model;
    }
  } catch { /* offline or no key yet */ }
}

// --- wiring ---------------------------------------------------------------

function init() {
  load();
  state.current = state.conversations[0] ? state.conversations[0].id : null;
  for (const e of document.querySelectorAll("[data-setting]")) e.addEventListener("change", saveSettings);
  $("api_key").addEventListener("change", loadModel);
  $("new-chat").addEventListener("click", () => { if (!state.controller) newConversation(); });
  $("composer").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("input").value;
    if (!text.trim() && !state.attachments.length) return;
    $("input").value = "";
    send(text);
  });
  $("input").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey) {
      ev.preventDefault();
      $("composer").requestSubmit();
    }
  });
  $("stop").addEventListener("click", () => { if (state.controller) state.controller.abort(); });
  $("attach").addEventListener("change", () => {
    for (const f of $("attach").files) {
      const r = new FileReader();
      r.onload = () => {
        state.attachments.push(r.result);
        const img = el("img", "thumb");
        img.src = r.result;
        img.alt = f.name;
        $("attachments").append(img);
      };
      r.readAsDataURL(f);
    }
    $("attach").value = "";
  });
  render();
  loadModel();
}

init();
