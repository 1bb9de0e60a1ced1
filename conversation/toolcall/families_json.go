package toolcall

// jsonFamilies are the formats whose calls are JSON objects naming the
// function: hermes, llama3, mistral, … (families_json_*.go).
func jsonFamilies() []Format { return nil }
