package template

// DefaultChatML is the chat template used for a model whose metadata has no
// tokenizer.chat_template. It is the ChatML format (as used by Qwen, Hermes
// and many fine-tunes, and the fallback llama.cpp uses): each message becomes
//
//	<|im_start|>ROLE\nCONTENT<|im_end|>\n
//
// and add_generation_prompt appends "<|im_start|>assistant\n". Message
// content that is not a string is serialised with tojson.
const DefaultChatML = `{%- for message in messages -%}
<|im_start|>{{ message['role'] }}
{% if message['content'] is string %}{{ message['content'] }}{% elif message['content'] is not none %}{{ message['content'] | tojson }}{% endif %}<|im_end|>
{% endfor -%}
{%- if add_generation_prompt -%}
<|im_start|>assistant
{% endif -%}`
