// Package litert is a Genkit for Go (v1.4) plugin that serves local
// litert-go models: DefineModel registers an engine as a Genkit model, so
// genkit.Generate, genkit.DefineTool with ai.WithTools (the automatic tool
// loop), ai.WithReturnToolRequests with tool.RunRaw (the manual loop),
// streaming and structured output run unchanged on a model file.
//
// Genkit requests are stateless: each carries the whole history. The model
// keeps a few conversations and continues the one whose history shares the
// longest prefix with the request, so a multi-turn chat or a tool loop only
// prefills the new messages. Tool calls are parsed in the model family's
// format and, for Hermes and Llama 3 formats, grammar-constrained, so
// ai.WithToolChoice(ai.ToolChoiceRequired) forces a well-formed call.
package litert
