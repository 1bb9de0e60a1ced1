package encoder

import (
	"context"
	"fmt"

	"github.com/litert-go/litert-go/native"
)

// visionTower is a SigLIP ViT (tensors v.*) and its projector (mm.*), as
// clip.cpp's clip_graph_siglip builds it.
type visionTower struct {
	hp       hparams
	patch    native.Weight // v.patch_embd.weight [p, p, 3, nEmbd], as F16
	patchB   []float32     // v.patch_embd.bias [nEmbd], optional
	pos      []float32     // v.position_embd.weight [nEmbd, nPatches]
	tr       transformer
	outDim   int
	softNorm []float32     // gemma3: mm.soft_emb_norm.weight [nEmbd]
	proj     native.Weight // gemma3: mm.input_projection.weight, transposed; idefics3: mm.model.fc.weight
}

func loadVision(l *loader) (*visionTower, error) {
	hp := l.hp
	E, p := hp.nEmbd, hp.patchSize
	side := hp.imageSize / p
	v := &visionTower{hp: hp}
	v.patch = l.kernelF16("v.patch_embd.weight", p, p, 3, E)
	v.patchB = l.optVector("v.patch_embd.bias", E)
	v.pos = l.floats("v.position_embd.weight", true, E, side*side)
	v.tr = loadTransformer(l, "v")
	switch hp.proj {
	case "gemma3":
		v.softNorm = l.vector("mm.soft_emb_norm.weight", E)
		// stored [text, vision] and multiplied by its transpose
		const name = "mm.input_projection.weight"
		if t, ok := l.f.Tensor(name); ok && len(t.Dims) == 2 && t.Dims[0] > 0 && t.Dims[0] <= maxWidth {
			v.outDim = int(t.Dims[0])
		}
		w := l.floats(name, true, v.outDim, E)
		if w == nil {
			if l.err == nil {
				l.fail("tensor %q: want [text width, %d]", name, E)
			}
			break
		}
		wt := make([]float32, len(w))
		for i := range E {
			for o := range v.outDim {
				wt[o*E+i] = w[i*v.outDim+o]
			}
		}
		v.proj = f32Weight(wt, v.outDim, E)
	case "idefics3":
		in := E * hp.merge * hp.merge
		v.outDim = l.outWidth("mm.model.fc.weight", in)
		v.proj = l.matrix("mm.model.fc.weight", in, v.outDim)
	}
	if l.err != nil {
		return nil, l.err
	}
	return v, nil
}

// tokens is the number of embeddings an image of the tower's size gives.
func (v *visionTower) tokens() int {
	side := v.hp.imageSize / v.hp.patchSize / v.hp.merge
	return side * side
}

// EncodeImageTensor encodes a preprocessed image: planar RGB (3×h×w, the
// channels one after the other), already resized to the encoder's
// ImageSize and normalized. It returns n rows of EmbeddingDim values.
func (e *Encoder) EncodeImageTensor(ctx context.Context, w, h int, rgb []float32) ([]float32, int, error) {
	v := e.vision
	if v == nil {
		return nil, 0, fmt.Errorf("encoder: %s mmproj has no vision encoder", e.Projector())
	}
	side := v.hp.imageSize
	if w != side || h != side {
		return nil, 0, fmt.Errorf("encoder: %s vision encoder takes %d×%d images, got %d×%d", v.hp.proj, side, side, w, h)
	}
	if len(rgb) != 3*w*h {
		return nil, 0, fmt.Errorf("encoder: image of %d×%d needs %d values (3 planes), got %d", w, h, 3*w*h, len(rgb))
	}
	b, hp := e.b, v.hp
	E, p := hp.nEmbd, hp.patchSize
	np := side / p // patches per side

	// patch embedding: conv2d of stride p as im2col + MatMul; ggml's im2col
	// is F16, so the pixels are rounded to it
	cols := make([]float32, np*np*3*p*p)
	for py := range np {
		for px := range np {
			col := cols[(py*np+px)*3*p*p:]
			for c := range 3 {
				for ky := range p {
					for kx := range p {
						col[(c*p+ky)*p+kx] = roundF16(rgb[(c*side+py*p+ky)*side+px*p+kx])
					}
				}
			}
		}
	}
	x := matmul(b, v.patch, cols, np*np, v.patchB)
	// learned position embeddings
	for i := range x {
		x[i] += v.pos[i]
	}
	x, _, err := v.tr.forward(ctx, b, x, np*np)
	if err != nil {
		return nil, 0, err
	}

	k := hp.merge
	no := np / k // output tokens per side
	switch hp.proj {
	case "gemma3":
		// average pooling k×k, then RMS norm with the soft embedding norm
		pooled := make([]float32, no*no*E)
		for oy := range no {
			for ox := range no {
				dst := pooled[(oy*no+ox)*E : (oy*no+ox+1)*E]
				for ky := range k {
					for kx := range k {
						src := x[((oy*k+ky)*np+ox*k+kx)*E:]
						for e := range dst {
							dst[e] += src[e]
						}
					}
				}
				for e := range dst {
					dst[e] /= float32(k * k)
				}
			}
		}
		rmsNorm(b, pooled, v.softNorm, E, hp.eps)
		x = pooled
	case "idefics3":
		// pixel shuffle: each k×k block of patches becomes one token of
		// k·k·E values, ordered by block row, block column, then channel
		// (clip.cpp's build_patch_merge_permute)
		sh := make([]float32, no*no*k*k*E)
		for oy := range no {
			for ox := range no {
				dst := sh[(oy*no+ox)*k*k*E:]
				for dy := range k {
					for dx := range k {
						copy(dst[(dy*k+dx)*E:(dy*k+dx+1)*E], x[((oy*k+dy)*np+ox*k+dx)*E:])
					}
				}
			}
		}
		x = sh
	}
	out := matmul(b, v.proj, x, no*no, nil)
	return out, no * no, nil
}
