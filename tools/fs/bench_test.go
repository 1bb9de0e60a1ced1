package fs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkReadFile reads one small file: the cost of the checks around
// the open (on Linux, the directory watch and the getdents barrier).
func BenchmarkReadFile(b *testing.B) {
	s := newSandbox(b, Options{})
	ctx := context.Background()
	for b.Loop() {
		if _, err := s.tb.ReadFile(ctx, ReadFileInput{Path: "dir/b.txt"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFindTextInFiles searches 200 small files in 10 directories.
func BenchmarkFindTextInFiles(b *testing.B) {
	s := newSandbox(b, Options{})
	for d := range 10 {
		dir := filepath.Join(s.root, fmt.Sprintf("pkg%d", d))
		require.NoError(b, os.MkdirAll(dir, 0o755))
		for f := range 20 {
			text := fmt.Sprintf("package pkg%d\n\nfunc F%d() int { return %d }\n", d, f, d*f)
			require.NoError(b, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", f)), []byte(text), 0o644))
		}
	}
	ctx := context.Background()
	for b.Loop() {
		if _, err := s.tb.FindTextInFiles(ctx, FindTextInFilesInput{Pattern: "return 42"}); err != nil {
			b.Fatal(err)
		}
	}
}
