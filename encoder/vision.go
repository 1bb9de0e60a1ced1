package encoder

import (
	"context"
	"fmt"
	"math"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/native"
)

// visionTower is a SigLIP ViT (tensors v.*) and its projector (mm.*), as
// clip.cpp's clip_graph_siglip builds it.
type visionTower struct {
	hp       hparams
	patch    native.Weight // v.patch_embd.weight [p, p, 3, nEmbd], as F16
	patchB   []float32     // v.patch_embd.bias [nEmbd], optional
	pos      []float32     // v.position_embd.weight [nEmbd, posSide²]
	posSide  int           // position embeddings per side
	tr       transformer
	outDim   int
	softNorm []float32     // gemma3: mm.soft_emb_norm.weight [nEmbd]
	proj     native.Weight // gemma3: mm.input_projection.weight, transposed; idefics3: mm.model.fc.weight; lfm2: mm.2.weight
	// lfm2
	inNormW, inNormB []float32     // mm.input_norm.{weight,bias} [nEmbd·merge²], optional
	mm1              native.Weight // mm.1.weight [nEmbd·merge², hidden]
	mm1B, projB      []float32     // mm.1.bias [hidden], mm.2.bias [text]
}

// maxPatches bounds the patches of one image (an attention of n² scores per
// head): 4096 is 1024 LFM2 tokens, four times its largest tile.
const maxPatches = 4096

func loadVision(l *loader) (*visionTower, error) {
	hp := l.hp
	E, p := hp.nEmbd, hp.patchSize
	v := &visionTower{hp: hp, posSide: hp.imageSize / p}
	v.patch = l.kernelF16("v.patch_embd.weight", p, p, 3, E)
	v.patchB = l.optVector("v.patch_embd.bias", E)
	if hp.proj == "lfm2" {
		// a square table of any size, interpolated to each image's patches
		if t, ok := l.f.Tensor("v.position_embd.weight"); ok && len(t.Dims) == 2 {
			v.posSide = int(math.Sqrt(float64(t.Dims[1])))
		}
	}
	v.pos = l.floats("v.position_embd.weight", true, E, v.posSide*v.posSide)
	v.tr = loadTransformer(l, "v")
	in := E * hp.merge * hp.merge // width of a merged token
	switch hp.proj {
	case "gemma3":
		v.softNorm = l.vector("mm.soft_emb_norm.weight", E)
		// stored [text, vision] and multiplied by its transpose, which
		// ggml makes (ggml_cont) in the tensor's own type: F32 or F16
		const name = "mm.input_projection.weight"
		t, ok := l.f.Tensor(name)
		if ok && len(t.Dims) == 2 && t.Dims[0] > 0 && t.Dims[0] <= maxWidth {
			v.outDim = int(t.Dims[0])
		}
		if ok && t.Type != ggml.F32 && t.Type != ggml.F16 {
			l.fail("tensor %q is %s; clip.cpp transposes it, which needs F32 or F16", name, t.Type)
			break
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
		if t.Type == ggml.F16 {
			v.proj = f16Weight(wt, v.outDim, E)
		}
	case "idefics3":
		v.outDim = l.outWidth("mm.model.fc.weight", in)
		v.proj = l.matrix("mm.model.fc.weight", in, v.outDim)
	case "lfm2":
		v.inNormW = l.optVector("mm.input_norm.weight", in)
		v.inNormB = l.optVector("mm.input_norm.bias", in)
		hidden := l.outWidth("mm.1.weight", in)
		v.mm1, v.mm1B = l.matrix("mm.1.weight", in, hidden), l.vector("mm.1.bias", hidden)
		v.outDim = l.outWidth("mm.2.weight", hidden)
		v.proj, v.projB = l.matrix("mm.2.weight", hidden, v.outDim), l.vector("mm.2.bias", v.outDim)
	}
	if l.err != nil {
		return nil, l.err
	}
	return v, nil
}

// checkSize returns an error unless the tower takes images of w×h.
func (v *visionTower) checkSize(w, h int) error {
	hp := v.hp
	if hp.proj != "lfm2" {
		if w != hp.imageSize || h != hp.imageSize {
			return fmt.Errorf("encoder: %s vision encoder takes %d×%d images, got %d×%d", hp.proj, hp.imageSize, hp.imageSize, w, h)
		}
		return nil
	}
	p := hp.patchSize
	if w < p || h < p || w%p != 0 || h%p != 0 || w > maxImage || h > maxImage || (w/p)*(h/p) > maxPatches {
		return fmt.Errorf("encoder: %s vision encoder takes images of whole %d-pixel patches, at most %d of them, got %d×%d", hp.proj, p, maxPatches, w, h)
	}
	return nil
}

// tokens is the number of embeddings an image of w×h gives.
func (v *visionTower) tokens(w, h int) int {
	p, k := v.hp.patchSize, v.hp.merge
	if v.hp.proj == "gemma3" {
		return (w / p / k) * (h / p / k)
	}
	return ((w/p + k - 1) / k) * ((h/p + k - 1) / k)
}

// EncodeImageTensor encodes one preprocessed image or tile, resized as the
// projector's preprocessing does (to ImageSize for gemma3 and idefics3)
// and normalized. It returns n rows of EmbeddingDim values.
func (e *Encoder) EncodeImageTensor(ctx context.Context, img *Image) ([]float32, int, error) {
	v := e.vision
	if v == nil {
		return nil, 0, fmt.Errorf("encoder: %s mmproj has no vision encoder", e.Projector())
	}
	if img == nil {
		return nil, 0, fmt.Errorf("encoder: no image")
	}
	w, h, rgb := img.W, img.H, img.Data
	if err := v.checkSize(w, h); err != nil {
		return nil, 0, err
	}
	if img.C != 3 || len(rgb) != 3*w*h {
		return nil, 0, fmt.Errorf("encoder: image of %d×%d needs 3 planes of %d values, got %d planes, %d values", w, h, w*h, img.C, len(rgb))
	}
	b, hp := e.b, v.hp
	E, p := hp.nEmbd, hp.patchSize
	px, py := w/p, h/p // patches per row and column

	// patch embedding: conv2d of stride p as im2col + MatMul by the F16
	// kernel (ggml's im2col is F16: matmul rounds the pixels to it)
	cols := make([]float32, px*py*3*p*p)
	for y := range py {
		for x := range px {
			col := cols[(y*px+x)*3*p*p:]
			for c := range 3 {
				for ky := range p {
					for kx := range p {
						col[(c*p+ky)*p+kx] = rgb[(c*h+y*p+ky)*w+x*p+kx]
					}
				}
			}
		}
	}
	x := matmul(b, v.patch, cols, px*py, v.patchB)
	// learned position embeddings, resized to the patch grid when it
	// differs from the table's (lfm2)
	pos := v.pos
	if px != v.posSide || py != v.posSide {
		pos = resizeAntialias(v.pos, E, v.posSide, v.posSide, px, py)
	}
	for i := range x {
		x[i] += pos[i]
	}
	x, _, err := v.tr.forward(ctx, b, x, px*py)
	if err != nil {
		return nil, 0, err
	}

	k := hp.merge
	switch hp.proj {
	case "gemma3":
		// average pooling k×k, then RMS norm with the soft embedding norm
		ox, oy := px/k, py/k
		pooled := make([]float32, ox*oy*E)
		for ty := range oy {
			for tx := range ox {
				dst := pooled[(ty*ox+tx)*E : (ty*ox+tx+1)*E]
				for ky := range k {
					for kx := range k {
						src := x[((ty*k+ky)*px+tx*k+kx)*E:]
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
		return matmul(b, v.proj, pooled, ox*oy, nil), ox * oy, nil
	case "idefics3":
		x, n := pixelShuffle(x, E, px, py, k)
		return matmul(b, v.proj, x, n, nil), n, nil
	default: // lfm2
		x, n := pixelShuffle(x, E, px, py, k)
		in := E * k * k
		if v.inNormW != nil || v.inNormB != nil {
			layerNorm(x, v.inNormW, v.inNormB, in, 1e-5) // nn.LayerNorm's default eps
		}
		x = matmul(b, v.mm1, x, n, v.mm1B)
		activate(x, geluTanh)
		return matmul(b, v.proj, x, n, v.projB), n, nil
	}
}

// pixelShuffle merges each k×k block of a px×py grid of E-wide patches
// into one token of k·k·E values, ordered by row in the block, column,
// then channel; a grid not divisible by k is padded with zero patches at
// the right and bottom (clip.cpp's build_patch_merge_permute).
func pixelShuffle(x []float32, E, px, py, k int) ([]float32, int) {
	ox, oy := (px+k-1)/k, (py+k-1)/k
	out := make([]float32, ox*oy*k*k*E)
	for ty := range oy {
		for tx := range ox {
			dst := out[(ty*ox+tx)*k*k*E:]
			for dy := range k {
				for dx := range k {
					if y, x0 := ty*k+dy, tx*k+dx; y < py && x0 < px {
						copy(dst[(dy*k+dx)*E:(dy*k+dx+1)*E], x[(y*px+x0)*E:])
					}
				}
			}
		}
	}
	return out, ox * oy
}

// resizeAntialias resizes a grid of sw×sh E-wide vectors (row-major, x
// fastest) to dw×dh, each channel separately, as ggml_interpolate with
// GGML_SCALE_MODE_BILINEAR | GGML_SCALE_FLAG_ANTIALIAS does (PyTorch's
// interpolate(mode="bilinear", antialias=True, align_corners=False)).
func resizeAntialias(src []float32, E, sw, sh, dw, dh int) []float32 {
	sf0, sf1 := float32(dw)/float32(sw), float32(dh)/float32(sh)
	support0, support1 := max(1, 1/sf0), max(1, 1/sf1)
	inv0, inv1 := 1/support0, 1/support1
	triangle := func(v float32) float32 { return max(1-float32(math.Abs(float64(v))), 0) }
	const off = 0.5
	out := make([]float32, dw*dh*E)
	for i1 := range dh {
		y := (float32(i1) + off) / sf1
		yMin, yMax := max(int(y-support1+off), 0), min(int(y+support1+off), sh)
		for i0 := range dw {
			x := (float32(i0) + off) / sf0
			xMin, xMax := max(int(x-support0+off), 0), min(int(x+support0+off), sw)
			dst := out[(i1*dw+i0)*E : (i1*dw+i0+1)*E]
			for e := range dst {
				var val, total float32
				for sy := yMin; sy < yMax; sy++ {
					wy := triangle((float32(sy) - y + off) * inv1)
					for sx := xMin; sx < xMax; sx++ {
						wgt := triangle((float32(sx)-x+off)*inv0) * wy
						if wgt <= 0 {
							continue
						}
						val += src[(sy*sw+sx)*E+e] * wgt
						total += wgt
					}
				}
				if total > 0 {
					val /= total
				}
				dst[e] = val
			}
		}
	}
	return out
}
