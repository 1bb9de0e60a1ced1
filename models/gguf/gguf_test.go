package gguf

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/litert-go/litert-go/internal/hugepage"
	"github.com/litert-go/litert-go/models/ggml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testdata = "../../../shared/testdata"

func fixtures(t testing.TB) []string {
	t.Helper()
	var paths []string
	for _, dir := range []string{"models", "vocab"} {
		m, _ := filepath.Glob(filepath.Join(testdata, dir, "*.gguf"))
		paths = append(paths, m...)
	}
	if len(paths) == 0 {
		t.Skipf("no GGUF fixtures under %s (../shared/testdata absent)", testdata)
	}
	return paths
}

func TestReadFixtures(t *testing.T) {
	for _, p := range fixtures(t) {
		t.Run(filepath.Base(p), func(t *testing.T) {
			f, err := Open(p)
			require.NoError(t, err)
			defer f.Close()
			arch, err := f.Architecture()
			require.NoError(t, err)
			assert.NotEmpty(t, arch)
			toks, err := f.Strings("tokenizer.ggml.tokens")
			require.NoError(t, err)
			assert.NotEmpty(t, toks)
		})
	}
}

func TestStoriesShape(t *testing.T) {
	p := filepath.Join(testdata, "models", "stories260K.gguf")
	if _, err := os.Stat(p); err != nil {
		t.Skip("stories260K.gguf absent")
	}
	f, err := Open(p)
	require.NoError(t, err)
	defer f.Close()
	assert.EqualValues(t, 3, f.Version)
	n, err := f.Int("llama.block_count")
	require.NoError(t, err)
	assert.EqualValues(t, 5, n)
	emb, ok := f.Tensor("token_embd.weight")
	require.True(t, ok)
	assert.Equal(t, []uint64{64, 512}, emb.Dims)
	assert.Equal(t, ggml.F32, emb.Type)
	assert.Len(t, f.TensorData(emb), 64*512*4)

	_, err = f.String("llama.block_count")
	require.EqualError(t, err, `gguf: key "llama.block_count" is uint32, want string`)
	_, err = f.Int("llama.nope")
	require.EqualError(t, err, `gguf: key "llama.nope" missing`)
}

// TestRoundTrip writes every fixture back and expects identical bytes.
func TestRoundTrip(t *testing.T) {
	for _, p := range fixtures(t) {
		t.Run(filepath.Base(p), func(t *testing.T) {
			orig, err := os.ReadFile(p)
			require.NoError(t, err)
			f, err := Parse(orig)
			require.NoError(t, err)
			var buf bytes.Buffer
			require.NoError(t, Write(&buf, f.Model()))
			// Vocab-only files end at the header: no data padding is written
			// by llama.cpp there, so compare the common prefix and lengths.
			if len(f.Tensors) == 0 {
				require.True(t, bytes.HasPrefix(buf.Bytes(), orig) || bytes.HasPrefix(orig, buf.Bytes()))
				return
			}
			require.True(t, bytes.Equal(orig, buf.Bytes()), "rewritten file differs (len %d vs %d)", len(orig), buf.Len())
		})
	}
}

func TestWriteReadAllTypes(t *testing.T) {
	m := &Model{KV: []KV{
		{"general.architecture", String("llama")},
		{"u8", Value{Type: TypeUint8, Data: uint8(7)}},
		{"i8", Value{Type: TypeInt8, Data: int8(-7)}},
		{"u16", Value{Type: TypeUint16, Data: uint16(700)}},
		{"i16", Value{Type: TypeInt16, Data: int16(-700)}},
		{"u32", Uint32(70000)},
		{"i32", Int32(-70000)},
		{"f32", Float32(1.5)},
		{"b", Bool(true)},
		{"u64", Uint64(1 << 40)},
		{"i64", Value{Type: TypeInt64, Data: int64(-1 << 40)}},
		{"f64", Value{Type: TypeFloat64, Data: 2.25}},
		{"strs", Strings([]string{"a", "", "ü"})},
		{"nested", Value{Type: TypeArray, Elem: TypeArray, Data: []Value{Int32s([]int32{1, 2}), Strings([]string{"x"})}}},
		{"general.alignment", Uint32(64)},
	}, Tensors: []Tensor{
		{Info: TensorInfo{Name: "a", Dims: []uint64{3}, Type: ggml.F32}, Data: make([]byte, 12)},
		{Info: TensorInfo{Name: "b", Dims: []uint64{32, 2}, Type: ggml.Q8_0}, Data: bytes.Repeat([]byte{1}, 68)},
	}}
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, m))
	f, err := Parse(buf.Bytes())
	require.NoError(t, err)
	assert.Equal(t, 64, f.Alignment)
	for _, kv := range m.KV {
		v, ok := f.Lookup(kv.Key)
		require.True(t, ok, kv.Key)
		assert.Equal(t, kv.Value, v, kv.Key)
	}
	b, _ := f.Tensor("b")
	assert.EqualValues(t, 64, b.Offset)
	assert.Equal(t, m.Tensors[1].Data, f.TensorData(b))
	ints, err := f.Ints("nested")
	assert.Nil(t, ints)
	assert.ErrorContains(t, err, "array of array")
}

// header builds a minimal file: magic, version, counts, then body.
func header(version uint32, nTensors, nKV uint64, body ...[]byte) []byte {
	b := []byte(Magic)
	b = binary.LittleEndian.AppendUint32(b, version)
	b = binary.LittleEndian.AppendUint64(b, nTensors)
	b = binary.LittleEndian.AppendUint64(b, nKV)
	for _, x := range body {
		b = append(b, x...)
	}
	return b
}

func str(s string) []byte { return append(binary.LittleEndian.AppendUint64(nil, uint64(len(s))), s...) }
func u32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func u64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

func TestHostile(t *testing.T) {
	tensor := func(name string, dims []uint64, typ uint32, off uint64) []byte {
		b := append(str(name), u32(uint32(len(dims)))...)
		for _, d := range dims {
			b = append(b, u64(d)...)
		}
		return append(append(b, u32(typ)...), u64(off)...)
	}
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "too short"},
		{"bad magic", []byte("GGML\x03\x00\x00\x00"), "bad magic"},
		{"big endian", append([]byte(Magic), 0, 0, 0, 3), "big-endian"},
		{"version 1", header(1, 0, 0), "version 1"},
		{"version 9", header(9, 0, 0), "unsupported GGUF version 9"},
		{"truncated counts", []byte("GGUF\x03\x00\x00\x00\x01"), "truncated"},
		{"huge kv count", header(3, 0, 1<<60), "metadata count"},
		{"huge tensor count", header(3, 1<<60, 0), "tensor count"},
		{"string past end", header(3, 0, 1, u64(1<<40)), "truncated"},
		{"array past end", header(3, 0, 1, str("k"), u32(uint32(TypeArray)), u32(uint32(TypeUint32)), u64(1<<50)), "runs past the end"},
		{"unknown value type", header(3, 0, 1, str("k"), u32(99)), "unknown value type 99"},
		{"duplicate key", header(3, 0, 2, str("k"), u32(uint32(TypeUint8)), []byte{1}, str("k"), u32(uint32(TypeUint8)), []byte{1}), `duplicate metadata key "k"`},
		{"bad bool", header(3, 0, 1, str("k"), u32(uint32(TypeBool)), []byte{7}), "bool byte"},
		{"bad alignment", header(3, 0, 1, str("general.alignment"), u32(uint32(TypeUint32)), u32(3)), "power of two"},
		{"huge alignment", header(3, 0, 1, str("general.alignment"), u32(uint32(TypeUint32)), u32(1<<30)),
			`key "general.alignment" is 1073741824: want a power of two no larger than 1048576`},
		{"alignment 2^31", header(3, 0, 1, str("general.alignment"), u32(uint32(TypeUint32)), u32(1<<31)), `key "general.alignment"`},
		{"zero alignment", header(3, 0, 1, str("general.alignment"), u32(uint32(TypeUint32)), u32(0)), `key "general.alignment" is 0`},
		{"string alignment", header(3, 0, 1, str("general.alignment"), u32(uint32(TypeString)), str("32")), `key "general.alignment" is 32`},
		{"dims overflow", header(3, 1, 0, tensor("t", []uint64{1 << 40, 1 << 40}, 0, 0)), "overflows"},
		{"too many dims", header(3, 1, 0, tensor("t", []uint64{1, 1, 1, 1, 1}, 0, 0)), "5 dimensions"},
		{"unknown tensor type", header(3, 1, 0, tensor("t", []uint64{4}, 77, 0)), `tensor "t" has unknown type 77`},
		{"block size", header(3, 1, 0, tensor("t", []uint64{17}, uint32(ggml.Q8_0), 0)), "not a multiple"},
		{"data outside", header(3, 1, 0, tensor("t", []uint64{1024}, 0, 0)), "outside the file"},
		{"misaligned", header(3, 1, 0, tensor("t", []uint64{1}, 0, 4), make([]byte, 64)), "not a multiple of the alignment"},
		{"duplicate tensor", header(3, 2, 0, tensor("t", []uint64{1}, 0, 0), tensor("t", []uint64{1}, 0, 32)), `duplicate tensor name "t"`},
		{"deep arrays", header(3, 0, 1, str("k"), u32(uint32(TypeArray)), bytes.Repeat(append(u32(uint32(TypeArray)), u64(1)...), 20)), "nested deeper"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.data)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func TestOpenErrors(t *testing.T) {
	_, err := Open(filepath.Join(t.TempDir(), "missing.gguf"))
	assert.ErrorContains(t, err, "missing.gguf")
	p := filepath.Join(t.TempDir(), "trunc.gguf")
	require.NoError(t, os.WriteFile(p, []byte("GGUF\x03\x00"), 0o644))
	_, err = Open(p)
	assert.ErrorContains(t, err, "trunc.gguf")
	assert.ErrorIs(t, err, ErrTruncated)
}

func TestTruncatedFixture(t *testing.T) {
	p := filepath.Join(testdata, "models", "stories260K-Q8_0.gguf")
	orig, err := os.ReadFile(p)
	if err != nil {
		t.Skip("stories260K-Q8_0.gguf absent")
	}
	for _, n := range []int{5, 100, 1000, 10000, len(orig) - 40} {
		_, err := Parse(orig[:n])
		assert.ErrorIs(t, err, ErrTruncated, "cut at %d", n)
	}
}

// countingWriter counts what is written to it.
type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// An absurd alignment is refused before anything is written: 2^30 once made
// the writer pad a vocabulary-only file to a gigabyte.
func TestWriteRefusesHugeAlignment(t *testing.T) {
	for _, a := range []uint32{1 << 30, 1 << 21, 48} {
		m := &Model{KV: []KV{{"general.architecture", String("llama")}, {"general.alignment", Uint32(a)}}}
		var w countingWriter
		err := Write(&w, m)
		require.Error(t, err, "alignment %d", a)
		assert.ErrorContains(t, err, `key "general.alignment"`)
		assert.Zero(t, w.n, "bytes written before the refusal")
	}
	m := &Model{KV: []KV{{"general.architecture", String("llama")}, {"general.alignment", Uint32(MaxAlignment)}},
		Tensors: []Tensor{{Info: TensorInfo{Name: "a", Dims: []uint64{3}, Type: ggml.F32}, Data: make([]byte, 12)}}}
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, m))
	f, err := Parse(buf.Bytes())
	require.NoError(t, err)
	assert.Equal(t, MaxAlignment, f.Alignment)
	assert.EqualValues(t, MaxAlignment, f.DataStart)
}

// FuzzRead parses arbitrary bytes. What parses must write back, and what
// is written must parse to the same metadata and tensors and write again
// to the same bytes (Write∘Parse is a fixed point after one round).
func FuzzRead(f *testing.F) {
	for _, p := range []string{"models/stories260K-Q4_0.gguf", "vocab/ggml-vocab-bert-bge.gguf"} {
		if b, err := os.ReadFile(filepath.Join(testdata, p)); err == nil {
			f.Add(b[:min(len(b), 64<<10)])
		}
	}
	f.Add(header(3, 0, 1, str("k"), u32(uint32(TypeString)), str("v")))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data)
		if err != nil {
			return
		}
		for _, ti := range file.Tensors {
			_ = file.TensorData(ti)
		}
		var buf bytes.Buffer
		if err := Write(&buf, file.Model()); err != nil {
			t.Fatalf("parsed file does not write back: %v", err)
		}
		again, err := Parse(buf.Bytes())
		require.NoError(t, err, "what Write wrote does not parse")
		require.Equal(t, file.Version, again.Version)
		require.Equal(t, file.Alignment, again.Alignment)
		require.Len(t, again.KV, len(file.KV))
		for i, kv := range file.KV {
			require.Equal(t, kv.Key, again.KV[i].Key)
			require.Equal(t, kv.Value.Type, again.KV[i].Value.Type, kv.Key)
			require.Equal(t, kv.Value.Len(), again.KV[i].Value.Len(), kv.Key)
		}
		require.Len(t, again.Tensors, len(file.Tensors))
		for i, ti := range file.Tensors {
			got := again.Tensors[i]
			require.Equal(t, ti.Name, got.Name)
			require.Equal(t, ti.Dims, got.Dims, ti.Name)
			require.Equal(t, ti.Type, got.Type, ti.Name)
			require.True(t, bytes.Equal(file.TensorData(ti), again.TensorData(got)), "tensor %q data changed", ti.Name)
		}
		// Values compare as bytes (a NaN is not equal to itself).
		var buf2 bytes.Buffer
		require.NoError(t, Write(&buf2, again.Model()))
		require.True(t, bytes.Equal(buf.Bytes(), buf2.Bytes()), "second write differs from the first")
	})
}

// TestReadPrivate checks that ReadPrivate gives every fixture the header
// and tensor bytes Open's mapping has, in memory aligned to a huge page,
// and reports bad files and cancellation as Open does.
func TestReadPrivate(t *testing.T) {
	for _, p := range fixtures(t) {
		t.Run(filepath.Base(p), func(t *testing.T) {
			mapped, err := Open(p)
			require.NoError(t, err)
			defer mapped.Close()
			read, err := ReadPrivate(context.Background(), p)
			require.NoError(t, err)
			assert.Zero(t, hugepage.Addr(read.data)%hugepage.Size, "the weights start on a huge page")
			require.Equal(t, mapped.KV, read.KV)
			require.Equal(t, mapped.Tensors, read.Tensors)
			for _, ti := range mapped.Tensors {
				require.True(t, bytes.Equal(mapped.TensorData(ti), read.TensorData(ti)), "tensor %s", ti.Name)
			}
			require.NoError(t, read.Close())
			require.NoError(t, read.Close(), "a second Close does nothing")
		})
	}
	_, err := ReadPrivate(context.Background(), filepath.Join(t.TempDir(), "missing.gguf"))
	assert.ErrorContains(t, err, "missing.gguf")
	p := filepath.Join(t.TempDir(), "trunc.gguf")
	require.NoError(t, os.WriteFile(p, []byte("GGUF\x03\x00"), 0o644))
	_, err = ReadPrivate(context.Background(), p)
	assert.ErrorIs(t, err, ErrTruncated)
	assert.ErrorContains(t, err, "trunc.gguf")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = ReadPrivate(ctx, fixtures(t)[0])
	assert.ErrorIs(t, err, context.Canceled)
}
