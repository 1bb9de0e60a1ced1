package toolcall

// minimaxM2XML is MiniMax M2's syntax: invokes inside one
// <minimax:tool_call> block; strings raw, other values JSON:
//
//	<minimax:tool_call>
//	<invoke name="name">
//	<parameter name="key">value</parameter>
//	</invoke>
//	</minimax:tool_call>
func minimaxM2XML() *taggedXMLSyntax {
	return &taggedXMLSyntax{
		blockOpen: "<minimax:tool_call>\n", blockClose: "</minimax:tool_call>",
		callOpen: `<invoke name="`, nameStops: `"`, afterName: "\">\n",
		paramOpen: `<parameter name="`, keyStops: `"`, afterKey: `">`,
		valueClose: "</parameter>", afterValue: "\n",
		callClose: "</invoke>\n",
		lead:      "\n",
	}
}

// minimaxM2 is MiniMax M2's format; see minimaxM2XML(). Its turns end
// with [e~[.
func minimaxM2() Format {
	return taggedXMLFormat("minimax-m2", minimaxM2XML(), []string{"<minimax:tool_call>"}, []string{"[e~["}, nil)
}
