package toolcall

import "github.com/litert-go/litert-go/constrain"

// mistralV3Format: Mistral with the v3 tokenizer (Mistral Nemo) — a JSON
// list of call objects, each with a 9-character id, behind [TOOL_CALLS]:
//
//	[TOOL_CALLS][{"name": "f", "arguments": {…}, "id": "a1b2c3d4e"}]
//
// It reads only the list; the name[ARGS] syntax is mistral's.
func mistralV3Format() Format {
	return &jsonFormat{
		name:  "mistral-v3",
		eot:   []string{"</s>"},
		opens: []string{"[TOOL_CALLS]"},
		read:  objectSyntax{layout: listLayout}.read,
		grammar: grammarSpec{
			open:  "[TOOL_CALLS][",
			call:  mistralV3Call,
			sep:   ", ",
			close: "]",
			stops: []string{"[TOOL_CALLS]"},
		},
	}
}

// mistralCallID is the schema of the ids Mistral's templates require.
const mistralCallID = `{"type": "string", "pattern": "^[a-zA-Z0-9]{9}$"}`

func mistralV3Call(name string, args constrain.Pattern) constrain.Pattern {
	return constrain.Sequence(
		constrain.Literal(`{"name": `+quoteJSON(name)+`, "arguments": `),
		args,
		constrain.Literal(`, "id": `),
		constrain.JSONValue([]byte(mistralCallID), "", constrain.JSONOptions{}),
		constrain.Literal("}"))
}

// mistralFormat: Mistral Small 3.2, Devstral, Ministral 3, Magistral (the
// v11+ tokenizers) — each call behind its own [TOOL_CALLS], the name, an
// optional id and the JSON arguments:
//
//	[TOOL_CALLS]f[ARGS]{…}[TOOL_CALLS]g[CALL_ID]a1b2c3d4e[ARGS]{…}
//
// The older list syntax (mistral-v3) is read too.
func mistralFormat() Format {
	named := namedSyntax{nameEnd: "[ARGS]", idMarker: "[CALL_ID]"}
	list := objectSyntax{layout: listLayout}
	return &jsonFormat{
		name:  "mistral",
		eot:   []string{"</s>"},
		opens: []string{"[TOOL_CALLS]"},
		read: func(f *jsonFormat, s string, at int, marker string, partial bool) region {
			// A list is a bracket and an object; [ARGS] or [CALL_ID]
			// after an empty name is a malformed name[ARGS] call.
			if j := skipSpace(s, at+len(marker)); j < len(s) && s[j] == '[' {
				if k := skipSpace(s, j+1); k == len(s) || s[k] == '{' {
					return list.read(f, s, at, marker, partial)
				}
			}
			return named.read(f, s, at, marker, partial)
		},
		grammar: grammarSpec{
			call:  mistralCall,
			stops: []string{"[TOOL_CALLS]"},
		},
	}
}

// mistralCall writes [TOOL_CALLS]name[ARGS]{…}, with the model free to
// write a call id ([CALL_ID] and 9 letters or digits) before [ARGS], as
// Mistral Small 3.2's template renders calls.
func mistralCall(name string, args constrain.Pattern) constrain.Pattern {
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	chars := make([]constrain.Pattern, len(alnum))
	for i := range alnum {
		chars[i] = constrain.Literal(alnum[i : i+1])
	}
	id := constrain.Sequence(constrain.Literal("[CALL_ID]"), constrain.Repeat(constrain.Choice(chars...), 9, 9))
	return constrain.Sequence(constrain.Literal("[TOOL_CALLS]"+name), constrain.Optional(id), constrain.Literal("[ARGS]"), args)
}
