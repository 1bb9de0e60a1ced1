// Package fs provides file tools for a coding agent, confined to one
// project directory: ListFiles, ReadFile, NewFile, EditFile,
// FindTextInFiles and DeleteFile.
//
// Every file operation goes through an [os.Root], so the kernel (openat2
// RESOLVE_BENEATH on Linux, or Go's component-by-component walk elsewhere)
// refuses any path that leaves the root: "..", absolute paths, and symbolic
// links that point outside, even when a link is swapped while an operation
// is in progress. Paths are also checked lexically first so a model gets a
// clear message ("leads outside the project root") rather than a system
// error. Hard links cannot be told apart from ordinary files by path, so
// files with more than one link are refused unless Options.AllowHardLinks
// is set; special files (FIFOs, devices, sockets) are refused always.
//
// The tools are built with tools.Define and returned by [Toolbox.Tools];
// each is also available as a typed method for Go callers.
package fs
