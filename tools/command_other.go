//go:build !unix

package tools

import (
	"os"
	"os/exec"
)

func setProcessGroup(*exec.Cmd) {}

func dirPath(_ *os.File, fallback string) string { return fallback }
