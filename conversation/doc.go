// Package conversation is the high-level chat API, modeled on LiteRT-LM's
// Conversation: messages in, messages out, with the model's own chat
// template doing the formatting.
//
// Each turn renders the history before and after the new message; when the
// first is a prefix of the second, only the difference is tokenized and
// prefilled into the Session's KV cache (the delta prompt). When a template
// rewrites earlier turns, the conversation falls back to re-prefilling from
// the longest common token prefix. Replies are parsed for tool calls in the
// model family's format (see ToolFormat), optionally constrained by a
// grammar so they are always well-formed, and tools defined with package
// tools can be run automatically.
package conversation
