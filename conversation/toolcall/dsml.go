package toolcall

// DeepSeek V3.2 and V4 write calls in DSML, whose tags carry the ｜DSML｜
// token. A parameter says whether its value is a raw string
// (string="true") or JSON (string="false"), so values keep their exact
// types without a schema:
//
//	<｜DSML｜function_calls>
//	<｜DSML｜invoke name="name">
//	<｜DSML｜parameter name="key" string="true">value</｜DSML｜parameter>
//	</｜DSML｜invoke>
//	</｜DSML｜function_calls>
//
// V3.2 names the block function_calls, V4 tool_calls: two formats of one
// syntax.
func dsmlSyntax(block string) *taggedXMLSyntax {
	return &taggedXMLSyntax{
		blockOpen: "<｜DSML｜" + block + ">\n", blockClose: "</｜DSML｜" + block + ">",
		callOpen: `<｜DSML｜invoke name="`, nameStops: `"`, afterName: "\">\n",
		paramOpen: `<｜DSML｜parameter name="`, keyStops: `"`, afterKey: `" string="`, stringAttr: true,
		valueClose: "</｜DSML｜parameter>", afterValue: "\n",
		callClose: "</｜DSML｜invoke>\n",
		lead:      "\n\n",
	}
}

// dsml is DeepSeek V3.2's format (<｜DSML｜function_calls>).
func dsml() Format {
	return taggedXMLFormat("dsml", dsmlSyntax("function_calls"), []string{"<｜DSML｜function_calls>"}, []string{dsEOS}, nil)
}

// dsmlV4 is DeepSeek V4's format (<｜DSML｜tool_calls>).
func dsmlV4() Format {
	return taggedXMLFormat("dsml-v4", dsmlSyntax("tool_calls"), []string{"<｜DSML｜tool_calls>"}, []string{dsEOS}, nil)
}
