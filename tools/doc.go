// Package tools defines typed Go functions that a language model can call.
//
// A tool is defined the way Genkit does it: a name, a description and a Go
// function taking a typed input and returning a typed output.
//
//	type WeatherInput struct {
//		Location string `json:"location" description:"City name, e.g. Paris"`
//		Unit     string `json:"unit,omitempty" enum:"celsius,fahrenheit"`
//	}
//	weather := tools.Define("get_weather", "Current weather for a city",
//		func(ctx context.Context, in WeatherInput) (string, error) { … })
//
// The JSON schema of the input is derived from the Go type by reflection
// (see [Define] for the rules) and is emitted with a stable key order, so a
// prompt that embeds it is byte-for-byte reproducible. Arguments produced by
// a model are validated against that schema before the function runs; every
// problem is reported as an [ArgumentError] naming the offending field, so the
// model can be told precisely what to fix.
//
// A [Set] looks tools up by name for the tool-calling loop, and [Command]
// builds an opt-in tool that runs allow-listed programs without a shell.
// Sandboxed file tools live in the sub-package tools/fs.
package tools
