package models

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

func TestZZDebug(t *testing.T) {
	src, _ := gguf.Open(writeTiny(t, "tiny-gemma3-270m", ggml.F32))
	var buf0 bytes.Buffer
	gguf.Write(&buf0, src.Model())
	data := buf0.Bytes()
	r := rand.New(rand.NewPCG(1, 2))
	vals := func() uint32 {
		switch r.IntN(4) {
		case 0:
			return 0
		case 1:
			return uint32(r.IntN(10))
		case 2:
			return uint32(r.IntN(300))
		}
		return r.Uint32()
	}
	for i := 0; i < 300; i++ {
		s, _ := gguf.Parse(data)
		m := s.Model()
		vs := []uint32{vals(), vals(), vals(), vals(), vals(), vals()}
		for j, k := range []string{"block_count", "attention.head_count", "attention.head_count_kv", "attention.key_length", "rope.dimension_count", "attention.sliding_window"} {
			if vs[j] != 0 {
				m.Set("gemma3."+k, gguf.Uint32(vs[j]))
			}
		}
		var buf bytes.Buffer
		gguf.Write(&buf, m)
		start := time.Now()
		file, _ := gguf.Parse(buf.Bytes())
		b := native.NewGo(1)
		model, err := Load(file, b)
		if err == nil {
			p := model.Params()
			st, _ := NewState(p, 8, 4, ggml.F32)
			logits := make([]float32, p.VocabSize)
			model.Forward(st, []int32{1, 2, 3}, logits)
		}
		b.Close()
		if d := time.Since(start); d > 50*time.Millisecond {
			t.Logf("%v %v err=%v", vs, d, err)
		}
	}
}
