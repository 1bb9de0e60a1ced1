// Package template renders Hugging Face chat templates exactly as the Python
// transformers library does in apply_chat_template.
//
// A chat template is a Jinja2 program stored in a model's tokenizer metadata
// (GGUF key tokenizer.chat_template). transformers compiles it in a sandboxed
// jinja2 environment with trim_blocks, lstrip_blocks and the loop-control
// extension, adds a json.dumps-compatible tojson filter and the globals
// raise_exception and strftime_now, and renders it with the variables
// messages, tools, documents, add_generation_prompt, the special tokens
// bos_token and eos_token, and any extra keyword arguments. This package sets
// up github.com/ardanlabs/jinja the same way, so that the rendered prompt is
// byte-identical to the one Python would produce.
//
// The engine is more lenient than jinja2 in places that templates rely on
// to fail, and it lacks jinja2's Markup strings, so Parse rewrites the
// template source (uniformly, never per template) to call helpers with
// Python semantics: "+" raises UndefinedError and TypeError as Python does
// and escapes plain strings added to Markup (|safe) strings, tojson is
// transformers' json.dumps-based filter, loops over None fail, the sandbox
// forbids list and dict mutation and attribute assignment outside
// namespaces, and macros reject unexpected arguments. Render failures carry
// Python's exception type and message, for example
// "UndefinedError: 'functions' is undefined".
//
// Inputs keep the key order of their JSON source: objects are decoded into
// ordered [Value] dicts (see [DecodeOrdered]), because templates iterate over
// and serialise them in that order.
//
// A template is untrusted code (a model file or a client supplies it), so
// parsing and rendering run under [Limits]: output size (default 4 MiB),
// the size of one string or list built (16 MiB), the memory built by the
// render in all (256 MiB), steps (1,000,000), nesting depth (100) and time
// (10 s, or the context's deadline if sooner). Passing one
// is a [*LimitError] naming the limit and the template line; [WithLimits]
// changes them.
//
// A [Template] is parsed once with [Parse] and is safe for concurrent use.
package template
