//go:build unix

package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func requirePrograms(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Skipf("program %q is absent: %v", n, err)
		}
	}
}

func runCommand(t *testing.T, tool *Tool, in CommandInput) (CommandResult, error) {
	t.Helper()
	args, err := json.Marshal(in)
	require.NoError(t, err)
	out, err := tool.RunRaw(context.Background(), args)
	if err != nil {
		return CommandResult{}, err
	}
	var res CommandResult
	require.NoError(t, json.Unmarshal(out, &res))
	return res, nil
}

func commandSandbox(t *testing.T) (parent, root string) {
	parent = t.TempDir()
	root = filepath.Join(parent, "root")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "victim.txt"), []byte("keep"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(parent, "outside.txt"), []byte("keep"), 0o644))
	return parent, root
}

func TestCommandAllowedAndRefused(t *testing.T) {
	requirePrograms(t, "echo", "ls", "pwd")
	parent, root := commandSandbox(t)
	tool, err := Command(CommandOptions{Allow: AllowPrograms("echo", "ls", "pwd"), Dir: root})
	require.NoError(t, err)
	assert.Equal(t, "RunCommand", tool.Name())
	assert.Contains(t, tool.Description(), "Allowed programs: echo, ls, pwd.")

	res, err := runCommand(t, tool, CommandInput{Program: "ls"})
	require.NoError(t, err)
	assert.Equal(t, 0, res.ExitCode)
	assert.Equal(t, "sub\nvictim.txt\n", res.Stdout)

	res, err = runCommand(t, tool, CommandInput{Program: "pwd", Dir: "sub"})
	require.NoError(t, err)
	realRoot, err := filepath.EvalSymlinks(root)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(realRoot, "sub")+"\n", res.Stdout)

	// A failing program is a result with its exit code, not an error.
	res, err = runCommand(t, tool, CommandInput{Program: "ls", Args: []string{"missing-file"}})
	require.NoError(t, err)
	assert.NotEqual(t, 0, res.ExitCode)
	assert.Contains(t, res.Stderr, "missing-file")

	for _, prog := range []string{"rm", "sh", "/bin/ls", "../ls", "ls ", "LS", ""} {
		_, err = runCommand(t, tool, CommandInput{Program: prog, Args: []string{"-rf", root}})
		require.Error(t, err, "%q", prog)
		assert.Contains(t, err.Error(), "is not allowed; allowed programs: echo, ls, pwd", prog)
	}
	for _, dir := range []string{"..", "../", "/", "sub/../..", root, `..\`, "a\x00"} {
		_, err = runCommand(t, tool, CommandInput{Program: "ls", Dir: dir})
		assert.Error(t, err, "%q", dir)
	}
	require.NoError(t, os.Symlink("..", filepath.Join(root, "up")))
	require.NoError(t, os.Symlink(parent, filepath.Join(root, "upabs")))
	for _, dir := range []string{"up", "upabs", "sub/../up", "victim.txt", "missing"} {
		_, err = runCommand(t, tool, CommandInput{Program: "pwd", Dir: dir})
		assert.Error(t, err, "%q", dir)
	}
	assert.FileExists(t, filepath.Join(root, "victim.txt"))
	assert.FileExists(t, filepath.Join(parent, "outside.txt"))
}

func TestCommandNoShell(t *testing.T) {
	requirePrograms(t, "echo")
	_, root := commandSandbox(t)
	tool, err := Command(CommandOptions{Allow: AllowPrograms("echo"), Dir: root, Env: []string{"HOME=/home/secret"}})
	require.NoError(t, err)
	args := []string{"$HOME; rm -rf victim.txt", "`rm victim.txt`", "$(rm victim.txt)", "|", "rm", "*", "&&", "rm victim.txt"}
	res, err := runCommand(t, tool, CommandInput{Program: "echo", Args: args})
	require.NoError(t, err)
	assert.Equal(t, strings.Join(args, " ")+"\n", res.Stdout, "arguments reach the program literally")
	assert.NotContains(t, res.Stdout, "/home/secret")
	assert.FileExists(t, filepath.Join(root, "victim.txt"))
}

func TestCommandSubcommands(t *testing.T) {
	requirePrograms(t, "git")
	_, root := commandSandbox(t)
	tool, err := Command(CommandOptions{Allow: map[string][]string{"git": {"version", "status"}}, Dir: root})
	require.NoError(t, err)
	res, err := runCommand(t, tool, CommandInput{Program: "git", Args: []string{"version"}})
	require.NoError(t, err)
	assert.Contains(t, res.Stdout, "git version")
	for _, args := range [][]string{nil, {"clean", "-fdx"}, {"-c", "x=y", "version"}} {
		_, err = runCommand(t, tool, CommandInput{Program: "git", Args: args})
		require.Error(t, err)
		assert.Contains(t, err.Error(), `program "git": the first argument must be one of version, status`)
	}
	assert.Contains(t, tool.Description(), "git (version, status)")
}

func TestCommandTimeout(t *testing.T) {
	requirePrograms(t, "sleep", "sh")
	_, root := commandSandbox(t)
	tool, err := Command(CommandOptions{Allow: AllowPrograms("sleep", "sh"), Dir: root, Timeout: 200 * time.Millisecond})
	require.NoError(t, err)
	start := time.Now()
	res, err := runCommand(t, tool, CommandInput{Program: "sleep", Args: []string{"10"}})
	require.NoError(t, err)
	assert.True(t, res.TimedOut)
	assert.Equal(t, -1, res.ExitCode)
	assert.Less(t, time.Since(start), 3*time.Second)

	// A grandchild holding the output pipe is killed with the process group.
	start = time.Now()
	res, err = runCommand(t, tool, CommandInput{Program: "sh", Args: []string{"-c", "sleep 10 & echo started; wait"}})
	require.NoError(t, err)
	assert.True(t, res.TimedOut)
	assert.Equal(t, "started\n", res.Stdout)
	assert.Less(t, time.Since(start), 3*time.Second)
}

func TestCommandBoundedOutput(t *testing.T) {
	requirePrograms(t, "head")
	_, root := commandSandbox(t)
	tool, err := Command(CommandOptions{Allow: AllowPrograms("head"), Dir: root, MaxOutput: 100})
	require.NoError(t, err)
	res, err := runCommand(t, tool, CommandInput{Program: "head", Args: []string{"-c", "100000", "/dev/zero"}})
	require.NoError(t, err)
	assert.True(t, res.Truncated)
	assert.Equal(t, strings.Repeat("\x00", 100)+"\n[truncated: 99900 more bytes]", res.Stdout)
}

func TestCommandConfigErrors(t *testing.T) {
	_, root := commandSandbox(t)
	_, err := Command(CommandOptions{Dir: root})
	assert.ErrorContains(t, err, "no programs are allowed")
	_, err = Command(CommandOptions{Allow: AllowPrograms("ls")})
	assert.ErrorContains(t, err, "Dir is required")
	_, err = Command(CommandOptions{Allow: AllowPrograms("no-such-program-xyz"), Dir: root})
	assert.ErrorContains(t, err, `program "no-such-program-xyz"`)
	_, err = Command(CommandOptions{Allow: AllowPrograms("bin/ls"), Dir: root})
	assert.ErrorContains(t, err, "bare name or an absolute path")
	_, err = Command(CommandOptions{Allow: AllowPrograms("ls"), Dir: filepath.Join(root, "missing")})
	assert.Error(t, err)
}
