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
// error. Special files (FIFOs, devices, sockets) are refused always.
//
// Hard links cannot be told apart from ordinary files by path, so a file
// with more than one link is not read unless Options.AllowHardLinks is
// set. A process inside the root can race that check: link a file from
// outside, let a tool open it, and remove the link before the tool looks
// at the link count. On Linux, reads therefore watch the directory entry
// they open (inotify) and, after the link-count check, wait on the
// directory's lock (getdents) before looking for an event that removed or
// replaced the entry; openSingle in open_linux.go argues why this closes
// the race. Writes never open an existing file: NewFile (overwrite) and
// EditFile write a new file beside it and rename it into place, so an
// outside file reached through a hard link keeps its content and mtime.
// On other platforms the read check is made once after opening, which
// narrows the race but does not close it.
//
// The tools are built with tools.Define and returned by [Toolbox.Tools];
// each is also available as a typed method for Go callers.
package fs
