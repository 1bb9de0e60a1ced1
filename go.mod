module github.com/litert-go/litert-go

go 1.27.3

require (
	github.com/ardanlabs/jinja v1.12.0 // indirect
	github.com/coder/websocket v1.8.15 // indirect
	github.com/dlclark/regexp2/v2 v2.13.0 // indirect
	github.com/ebitengine/purego v0.11.3 // indirect
	github.com/firebase/genkit/go v1.4.0 // indirect
	github.com/openai/openai-go/v3 v3.98.0 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/term v0.48.0 // indirect
)
