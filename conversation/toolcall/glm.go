package toolcall

// glmXML is GLM 4.5/4.6/4.7's syntax (also Poolside Laguna): the name
// right after <tool_call>, then key/value tag pairs; strings raw, other
// values JSON. GLM 4.6 and Laguna XS put each tag on a line of its own,
// GLM 4.7 and Laguna S write them on one line; the parser reads both and
// the grammar allows both:
//
//	<tool_call>name
//	<arg_key>key</arg_key>
//	<arg_value>value</arg_value>
//	</tool_call>
func glmXML() *taggedXMLSyntax {
	return &taggedXMLSyntax{
		callOpen: "<tool_call>", nameStops: "<\n", afterName: "\n",
		paramOpen: "<arg_key>", keyStops: "<", afterKey: "</arg_key>\n<arg_value>",
		valueClose: "</arg_value>", afterValue: "\n",
		callClose:        "</tool_call>",
		sep:              "\n",
		optionalNewlines: true,
	}
}

// glm is GLM's format; see glmXML(). Its turns end at <|user|> or
// <|observation|> (GLM) or </assistant> (Laguna).
func glm() Format {
	return taggedXMLFormat("glm", glmXML(), []string{"<tool_call>"},
		[]string{"<|user|>", "<|observation|>", "<|endoftext|>", "</assistant>"}, nil)
}
