package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// CommandOptions configures [Command].
type CommandOptions struct {
	// Name is the tool name (default "RunCommand").
	Name string
	// Allow maps each program the model may run to the first arguments
	// (subcommands) it may use; a nil or empty list allows any arguments.
	// A program is named as the model will name it ("go") and resolved
	// through PATH once, when the tool is made, or given as an absolute path.
	// Use [AllowPrograms] to allow programs with any arguments.
	Allow map[string][]string
	// Dir is the project root: commands run in it or in a directory below
	// it. Required.
	Dir string
	// Timeout bounds each run (default 30s). The whole process group is
	// killed when it expires.
	Timeout time.Duration
	// MaxOutput bounds the bytes kept of stdout and of stderr (default 32 KiB
	// each); the rest is dropped and Truncated is set.
	MaxOutput int
	// Env is the environment of the commands; nil inherits this process's.
	Env []string
}

// AllowPrograms allows each named program with any arguments.
func AllowPrograms(names ...string) map[string][]string {
	m := make(map[string][]string, len(names))
	for _, n := range names {
		m[n] = nil
	}
	return m
}

// CommandInput is the argument of the command tool.
type CommandInput struct {
	Program string   `json:"program" description:"Program to run; must be one of the allowed programs"`
	Args    []string `json:"args,omitempty" description:"Arguments, passed to the program as-is (no shell: no globbing, pipes, variables or quoting)"`
	Dir     string   `json:"dir,omitempty" description:"Working directory relative to the project root (default: the root)"`
}

// CommandResult is what the command tool returns. A non-zero exit status is
// a result, not an error, so the model sees the program's output.
type CommandResult struct {
	ExitCode  int    `json:"exit_code"`
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	TimedOut  bool   `json:"timed_out,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
}

// commandRunner holds the resolved configuration of a command tool.
type commandRunner struct {
	programs  map[string]string // name → absolute executable path
	allow     map[string][]string
	names     []string
	root      *os.Root
	rootPath  string
	timeout   time.Duration
	maxOutput int
	env       []string
}

// Command returns an opt-in tool that runs allow-listed programs with an
// explicit argument list — never through a shell — in the project root or
// a directory below it, with a timeout and bounded output.
//
// The allow-list is the security boundary: an allowed program can do
// whatever its arguments tell it (the arguments are not path-checked), so
// allow only programs whose every use is acceptable, and restrict
// subcommands where that matters (e.g. "go": {"build", "test", "vet"}).
// The working directory is opened through an [os.Root], so it cannot be
// outside the root, even through a symbolic link.
func Command(opts CommandOptions) (*Tool, error) {
	if len(opts.Allow) == 0 {
		return nil, errors.New("tools: command tool: no programs are allowed")
	}
	if opts.Dir == "" {
		return nil, errors.New("tools: command tool: Dir is required")
	}
	abs, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("tools: command tool: %w", err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("tools: command tool: opening %q: %w", opts.Dir, err)
	}
	r := &commandRunner{
		programs:  map[string]string{},
		allow:     map[string][]string{},
		root:      root,
		rootPath:  abs,
		timeout:   opts.Timeout,
		maxOutput: opts.MaxOutput,
		env:       opts.Env,
	}
	if r.timeout <= 0 {
		r.timeout = 30 * time.Second
	}
	if r.maxOutput <= 0 {
		r.maxOutput = 32 << 10
	}
	if r.env == nil {
		r.env = os.Environ()
	}
	for name, args := range opts.Allow {
		exe, err := resolveProgram(name)
		if err != nil {
			root.Close()
			return nil, fmt.Errorf("tools: command tool: %w", err)
		}
		r.programs[name] = exe
		r.allow[name] = slices.Clone(args)
		r.names = append(r.names, name)
	}
	slices.Sort(r.names)
	name := opts.Name
	if name == "" {
		name = "RunCommand"
	}
	desc := fmt.Sprintf("Run a program in the project directory with explicit arguments (no shell). "+
		"Allowed programs: %s. Each run is limited to %s.", r.describeAllowed(), r.timeout)
	t := Define(name, desc, r.run)
	if t.Err() != nil {
		root.Close()
		return nil, t.Err()
	}
	return t, nil
}

// resolveProgram finds the executable for an allow-list entry.
func resolveProgram(name string) (string, error) {
	if strings.ContainsRune(name, os.PathSeparator) || strings.ContainsRune(name, '/') {
		if !filepath.IsAbs(name) {
			return "", fmt.Errorf("program %q: give a bare name or an absolute path", name)
		}
	}
	exe, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("program %q: %w", name, err)
	}
	return filepath.Abs(exe)
}

func (r *commandRunner) describeAllowed() string {
	parts := make([]string, len(r.names))
	for i, n := range r.names {
		if subs := r.allow[n]; len(subs) > 0 {
			parts[i] = fmt.Sprintf("%s (%s)", n, strings.Join(subs, ", "))
		} else {
			parts[i] = n
		}
	}
	return strings.Join(parts, ", ")
}

func (r *commandRunner) run(ctx context.Context, in CommandInput) (CommandResult, error) {
	exe, ok := r.programs[in.Program]
	if !ok {
		return CommandResult{}, fmt.Errorf("program %q is not allowed; allowed programs: %s", in.Program, r.describeAllowed())
	}
	if subs := r.allow[in.Program]; len(subs) > 0 && (len(in.Args) == 0 || !slices.Contains(subs, in.Args[0])) {
		return CommandResult{}, fmt.Errorf("program %q: the first argument must be one of %s", in.Program, strings.Join(subs, ", "))
	}
	for i, a := range in.Args {
		if strings.IndexByte(a, 0) >= 0 {
			return CommandResult{}, fmt.Errorf("argument %d contains a NUL byte", i)
		}
	}
	sub, err := cleanDir(in.Dir)
	if err != nil {
		return CommandResult{}, err
	}
	dirFile, err := r.root.Open(filepath.FromSlash(sub))
	if err != nil {
		return CommandResult{}, fmt.Errorf("dir %q: %w", in.Dir, err)
	}
	defer dirFile.Close()
	if fi, err := dirFile.Stat(); err != nil || !fi.IsDir() {
		return CommandResult{}, fmt.Errorf("dir %q: not a directory", in.Dir)
	}
	realDir := filepath.Join(r.rootPath, filepath.FromSlash(sub))

	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, in.Args...)
	cmd.Args[0] = in.Program
	cmd.Dir = dirPath(dirFile, realDir)
	cmd.Env = append(slices.DeleteFunc(slices.Clone(r.env), func(kv string) bool {
		return strings.HasPrefix(kv, "PWD=")
	}), "PWD="+realDir)
	stdout := &boundedBuffer{max: r.maxOutput}
	stderr := &boundedBuffer{max: r.maxOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = 2 * time.Second
	setProcessGroup(cmd)

	err = cmd.Run()
	res := CommandResult{
		Stdout:    stdout.String(),
		Stderr:    stderr.String(),
		Truncated: stdout.dropped > 0 || stderr.dropped > 0,
		ExitCode:  cmd.ProcessState.ExitCode(),
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		res.TimedOut = true
		return res, nil
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return res, ctxErr
		}
		return res, fmt.Errorf("running %q: %w", in.Program, err)
	}
	return res, nil
}

// cleanDir checks a working directory given by the model: relative, inside
// the root, no NUL bytes.
func cleanDir(p string) (string, error) {
	switch {
	case p == "":
		return ".", nil
	case strings.IndexByte(p, 0) >= 0:
		return "", fmt.Errorf("dir %q: contains a NUL byte", p)
	case strings.ContainsRune(p, '\\'):
		return "", fmt.Errorf("dir %q: contains a backslash; use '/' as the separator", p)
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p):
		return "", fmt.Errorf("dir %q: absolute paths are not allowed; use a path relative to the project root", p)
	}
	c := path.Clean(p)
	if !filepath.IsLocal(filepath.FromSlash(c)) {
		return "", fmt.Errorf("dir %q: leads outside the project root", p)
	}
	return c, nil
}

// boundedBuffer keeps the first max bytes written to it and counts the rest.
type boundedBuffer struct {
	max     int
	buf     []byte
	dropped int64
}

// Write keeps what fits and always reports success, so the program is never
// blocked or killed by a full buffer.
func (b *boundedBuffer) Write(p []byte) (int, error) {
	room := b.max - len(b.buf)
	if room > len(p) {
		room = len(p)
	}
	b.buf = append(b.buf, p[:room]...)
	b.dropped += int64(len(p) - room)
	return len(p), nil
}

// String returns the kept output, with a note of how much was dropped.
func (b *boundedBuffer) String() string {
	s := strings.ToValidUTF8(string(b.buf), "\uFFFD")
	if b.dropped > 0 {
		s += fmt.Sprintf("\n[truncated: %d more bytes]", b.dropped)
	}
	return s
}
