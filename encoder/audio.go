package encoder

import (
	"context"
	"fmt"

	"github.com/litert-go/litert-go/native"
)

// audioTower is a Whisper encoder (tensors a.*) and its projector (mm.a.*),
// as clip.cpp's clip_graph_whisper_enc builds it: Ultravox and Voxtral
// stack frames into an MLP, Qwen2-Audio projects each pooled frame.
type audioTower struct {
	hp           hparams
	conv1, conv2 native.Weight // a.conv1d.{1,2}.weight [3, in, nEmbd], as F16
	conv1B       []float32     // a.conv1d.1.bias [1, nEmbd]
	conv2B       []float32
	pos          []float32 // a.position_embd.weight [nEmbd, nPos]
	nPos         int
	tr           transformer
	outDim       int
	normPre      []float32     // ultravox: mm.a.norm_pre.weight [nEmbd*stack]
	normMid      []float32     // ultravox: mm.a.norm_mid.weight [hidden]
	mm1, mm2     native.Weight // mm.a.mlp.1, mm.a.mlp.2; qwen2a: mm2 is mm.a.fc
	mm2B         []float32     // qwen2a: mm.a.fc.bias
	hidden       int
}

// Whisper's conv stem: two convolutions of kernel 3, padding 1, strides 1
// and 2 (ggml_conv_1d_ph).
const convKernel = 3

func loadAudio(l *loader) (*audioTower, error) {
	hp := l.hp
	E := hp.nEmbd
	a := &audioTower{hp: hp}
	a.conv1 = l.kernelF16("a.conv1d.1.weight", convKernel, hp.nMel, E)
	a.conv1B = l.floats("a.conv1d.1.bias", true, 1, E)
	a.conv2 = l.kernelF16("a.conv1d.2.weight", convKernel, E, E)
	a.conv2B = l.floats("a.conv1d.2.bias", true, 1, E)
	const posName = "a.position_embd.weight"
	if t, ok := l.f.Tensor(posName); ok && len(t.Dims) == 2 && t.Dims[1] > 0 && t.Dims[1] <= 1<<16 {
		a.nPos = int(t.Dims[1])
	}
	a.pos = l.floats(posName, true, E, a.nPos)
	if a.pos == nil && l.err == nil {
		l.fail("tensor %q: want [%d, positions ≤ 65536]", posName, E)
	}
	a.tr = loadTransformer(l, "a")
	a.tr.avgPool = hp.proj == "voxtral" || hp.proj == "qwen2a"
	in := E * hp.stack
	switch hp.proj {
	case "qwen2a":
		a.outDim = l.outWidth("mm.a.fc.weight", E)
		a.mm2, a.mm2B = l.matrix("mm.a.fc.weight", E, a.outDim), l.vector("mm.a.fc.bias", a.outDim)
		if l.err != nil {
			return nil, l.err
		}
		return a, nil
	case "ultravox":
		w := l.outWidth("mm.a.mlp.1.weight", in)
		if w%2 != 0 {
			l.fail("tensor %q: output width %d is odd, want the two halves of a SwiGLU", "mm.a.mlp.1.weight", w)
		}
		a.hidden = w / 2
		a.normPre = l.vector("mm.a.norm_pre.weight", in)
		a.mm1 = l.matrix("mm.a.mlp.1.weight", in, w)
		a.normMid = l.vector("mm.a.norm_mid.weight", a.hidden)
	case "voxtral":
		a.hidden = l.outWidth("mm.a.mlp.1.weight", in)
		a.mm1 = l.matrix("mm.a.mlp.1.weight", in, a.hidden)
	}
	a.outDim = l.outWidth("mm.a.mlp.2.weight", a.hidden)
	a.mm2 = l.matrix("mm.a.mlp.2.weight", a.hidden, a.outDim)
	if l.err != nil {
		return nil, l.err
	}
	return a, nil
}

// conv1d is ggml_conv_1d_ph with kernel convKernel: x holds n rows of in
// channels (time-major), the result n' rows of w.Rows channels with bias,
// n' = (n-1)/stride + 1. The kernel is F16, so matmul rounds the inputs to
// F16 as ggml's im2col does.
func conv1d(b native.Backend, w native.Weight, bias, x []float32, n, in, stride int) ([]float32, int) {
	const pad = convKernel / 2
	m := (n+2*pad-convKernel)/stride + 1
	cols := make([]float32, m*in*convKernel)
	for t := range m {
		col := cols[t*in*convKernel:]
		for c := range in {
			for k := range convKernel {
				if s := t*stride + k - pad; s >= 0 && s < n {
					col[c*convKernel+k] = x[s*in+c]
				}
			}
		}
	}
	return matmul(b, w, cols, m, bias), m
}

// EncodeMel encodes one log-mel spectrogram (a 30 s window at most) of
// MelBins bins. It returns n rows of EmbeddingDim values.
func (e *Encoder) EncodeMel(ctx context.Context, m *Mel) ([]float32, int, error) {
	a := e.audio
	if a == nil {
		return nil, 0, fmt.Errorf("encoder: %s mmproj has no audio encoder", e.Projector())
	}
	if m == nil {
		return nil, 0, fmt.Errorf("encoder: no mel spectrogram")
	}
	nMel, nFrames, mel := m.NMel, m.NFrames, m.Data
	hp := a.hp
	if nMel != hp.nMel {
		return nil, 0, fmt.Errorf("encoder: %s audio encoder takes %d mel bins, got %d", hp.proj, hp.nMel, nMel)
	}
	if nFrames < 2 || nFrames > 2*a.nPos {
		return nil, 0, fmt.Errorf("encoder: %s audio encoder takes 2..%d mel frames, got %d", hp.proj, 2*a.nPos, nFrames)
	}
	if len(mel) != nMel*nFrames {
		return nil, 0, fmt.Errorf("encoder: %d×%d mel spectrogram needs %d values, got %d", nMel, nFrames, nMel*nFrames, len(mel))
	}
	b, E := e.b, hp.nEmbd
	// time-major for the convolutions
	x := make([]float32, nFrames*nMel)
	for m := range nMel {
		for f := range nFrames {
			x[f*nMel+m] = mel[m*nFrames+f]
		}
	}
	// conv stem: conv + GELU, conv of stride 2 + GELU
	x, n := conv1d(b, a.conv1, a.conv1B, x, nFrames, nMel, 1)
	activate(x, geluErf)
	x, n = conv1d(b, a.conv2, a.conv2B, x, n, E, 2)
	activate(x, geluErf)
	// sinusoidal position embeddings, stored
	for i := range x {
		x[i] += a.pos[i]
	}
	x, n, err := a.tr.forward(ctx, b, x, n)
	if err != nil {
		return nil, 0, err
	}
	if n == 0 {
		return nil, 0, fmt.Errorf("encoder: %d mel frames are too few for the %s audio encoder: no embeddings", nFrames, hp.proj)
	}
	if hp.proj == "qwen2a" {
		return matmul(b, a.mm2, x, n, a.mm2B), n, nil
	}
	// stack frames: the rows joined stack at a time, zero-padded at the end
	in := E * hp.stack
	rows := (n*E + in - 1) / in
	x = append(x, make([]float32, rows*in-n*E)...)
	switch hp.proj {
	case "ultravox":
		// RMS norm, up to two halves, SwiGLU (silu of the second half times
		// the first), RMS norm, down
		rmsNorm(b, x, a.normPre, in, 1e-6)
		u := matmul(b, a.mm1, x, rows, nil)
		H := a.hidden
		g := make([]float32, rows*H)
		for r := range rows {
			src, dst := u[r*2*H:], g[r*H:(r+1)*H]
			for i := range dst {
				dst[i] = siluF32(src[H+i]) * src[i]
			}
		}
		rmsNorm(b, g, a.normMid, H, 1e-6)
		x = g
	case "voxtral":
		x = matmul(b, a.mm1, x, rows, nil)
		activate(x, geluErf)
	}
	return matmul(b, a.mm2, x, rows, nil), rows, nil
}
