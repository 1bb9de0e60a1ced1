package toolcall

// seedOSSXML is ByteDance Seed-OSS's syntax: Qwen3-Coder's parameters
// inside <seed:tool_call>, with values written inline. The template writes
// every non-string value with Jinja's |string, so lists and dicts come as
// Python literals (['a', 'b'], {'k': 1}) and booleans as True/False:
//
//	<seed:tool_call>
//	<function=name>
//	<parameter=key>value</parameter>
//	</function>
//	</seed:tool_call>
func seedOSSXML() *taggedXMLSyntax {
	return &taggedXMLSyntax{
		callOpen: "<seed:tool_call>\n<function=", nameStops: ">", afterName: ">\n",
		paramOpen: "<parameter=", keyStops: ">", afterKey: ">",
		valueClose: "</parameter>", afterValue: "\n",
		callClose: "</function>\n</seed:tool_call>",
		sep:       "\n",
	}
}

// seedOSS is Seed-OSS's format. Its reasoning block <seed:think>…
// </seed:think> is the thinking wrapper's (Detect reads its markers).
func seedOSS() Format {
	return taggedXMLFormat("seed-oss", seedOSSXML(), []string{"<seed:tool_call>"}, []string{"<seed:eos>"}, nil)
}
