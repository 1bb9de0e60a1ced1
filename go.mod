module github.com/litert-go/litert-go

go 1.27.3

require (
	github.com/ardanlabs/jinja v1.12.0 // indirect
	github.com/dlclark/regexp2/v2 v2.13.0 // indirect
	github.com/ebitengine/purego v0.11.3 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
