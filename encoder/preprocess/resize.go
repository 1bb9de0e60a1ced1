package preprocess

import (
	"fmt"
	"math"
)

// Algo is a resampling filter of mtmd-image.cpp's Pillow-compatible resizer.
type Algo int

const (
	Bilinear Algo = iota // PIL.Image.BILINEAR (triangle filter)
	Bicubic              // PIL.Image.BICUBIC (a = -0.5)
	Lanczos              // PIL.Image.LANCZOS (3 lobes)
)

func (a Algo) String() string {
	switch a {
	case Bilinear:
		return "bilinear"
	case Bicubic:
		return "bicubic"
	case Lanczos:
		return "lanczos"
	}
	return fmt.Sprintf("Algo(%d)", int(a))
}

// Pad says how a resize to a size of another aspect ratio fills the gap.
type Pad int

const (
	PadNone    Pad = iota // stretch to the target size
	PadCeil               // fit inside (sides rounded up), centre, fill the rest
	PadNearest            // fit inside (sides rounded to nearest), centre by rounding
)

// MaxResizeSide is the largest target side img_tool::resize_pillow accepts.
const MaxResizeSide = 65536

const precisionBits = 32 - 8 - 2

func (a Algo) support() float64 {
	switch a {
	case Bicubic:
		return 2
	case Lanczos:
		return 3
	}
	return 1
}

func (a Algo) filter(x float64) float64 {
	if a == Lanczos {
		if -3.0 <= x && x < 3.0 {
			sinc := func(v float64) float64 {
				if v == 0 {
					return 1
				}
				pv := v * 3.141592653589793238462643383279502884
				return math.Sin(pv) / pv
			}
			return sinc(x) * sinc(x/3.0)
		}
		return 0
	}
	if x < 0 {
		x = -x
	}
	if a == Bilinear {
		if x < 1 {
			return 1 - x
		}
		return 0
	}
	const c = -0.5
	if x < 1 {
		return ((c+2)*x-(c+3))*x*x + 1
	}
	if x < 2 {
		return (((x-5)*x+8)*x - 4) * c
	}
	return 0
}

// weights precomputes, for each output pixel along one axis, the first input
// pixel, the input count and the 22-bit fixed-point filter weights, as
// resize_pillow's precompute_weights does.
func (a Algo) weights(inSize, outSize int) (bounds []int, w []int32, ksize int) {
	scale := float64(inSize) / float64(outSize)
	filterscale := max(scale, 1.0)
	support := a.support() * filterscale
	ksize = int(math.Ceil(support))*2 + 1
	pre := make([]float64, outSize*ksize)
	bounds = make([]int, outSize*2)
	for xx := 0; xx < outSize; xx++ {
		center := (float64(xx) + 0.5) * scale
		ww := 0.0
		ss := 1.0 / filterscale
		xmin := int(center - support + 0.5)
		if xmin < 0 {
			xmin = 0
		}
		xmax := int(center + support + 0.5)
		if xmax > inSize {
			xmax = inSize
		}
		xmax -= xmin
		k := pre[xx*ksize : (xx+1)*ksize]
		for x := 0; x < xmax; x++ {
			v := a.filter((float64(x+xmin) - center + 0.5) * ss)
			k[x] = v
			ww += v
		}
		for x := 0; x < xmax; x++ {
			if ww != 0 {
				k[x] /= ww
			}
		}
		bounds[2*xx], bounds[2*xx+1] = xmin, xmax
	}
	w = make([]int32, len(pre))
	fxp := math.Ldexp(1, precisionBits)
	for i, v := range pre {
		r := v*fxp + 0.5
		if v < 0 {
			r = v*fxp - 0.5
		}
		w[i] = int32(r)
	}
	return bounds, w, ksize
}

func clip8(v int32) uint8 {
	if v < 0 {
		return 0
	}
	if v > 255 {
		return 255
	}
	return uint8(v)
}

// Resize resamples src to w×h with the Pillow-compatible fixed-point filter
// of llama.cpp's img_tool::resize_pillow (separable: horizontal pass, then
// vertical), stretching to the new aspect ratio.
func Resize(src *RGB8, w, h int, algo Algo) (*RGB8, error) {
	if w <= 0 || w > MaxResizeSide || h <= 0 || h > MaxResizeSide {
		return nil, fmt.Errorf("resize target %dx%d is out of range (1..%d)", w, h, MaxResizeSide)
	}
	if src.W <= 0 || src.H <= 0 || len(src.Pix) != 3*src.W*src.H {
		return nil, fmt.Errorf("resize: source is %dx%d with %d bytes", src.W, src.H, len(src.Pix))
	}
	if algo < Bilinear || algo > Lanczos {
		return nil, fmt.Errorf("resize: unknown algorithm %v", algo)
	}
	pix := src.Pix
	cw := src.W
	if w != src.W {
		bounds, k, ks := algo.weights(src.W, w)
		pix = resampleHorizontal(pix, src.W, src.H, w, ks, bounds, k)
		cw = w
	}
	if h != src.H {
		bounds, k, ks := algo.weights(src.H, h)
		pix = resampleVertical(pix, cw, h, ks, bounds, k)
	}
	if w == src.W && h == src.H {
		pix = append([]uint8(nil), pix...)
	}
	return &RGB8{W: w, H: h, Pix: pix}, nil
}

func resampleHorizontal(src []uint8, inW, inH, outW, ks int, bounds []int, k []int32) []uint8 {
	out := make([]uint8, outW*inH*3)
	for y := 0; y < inH; y++ {
		row := src[y*inW*3:]
		dst := out[y*outW*3:]
		for xx := 0; xx < outW; xx++ {
			xmin, xcnt := bounds[2*xx], bounds[2*xx+1]
			kk := k[xx*ks:]
			s0, s1, s2 := int32(1<<(precisionBits-1)), int32(1<<(precisionBits-1)), int32(1<<(precisionBits-1))
			p := row[xmin*3:]
			for x := 0; x < xcnt; x++ {
				s0 += int32(p[3*x]) * kk[x]
				s1 += int32(p[3*x+1]) * kk[x]
				s2 += int32(p[3*x+2]) * kk[x]
			}
			dst[3*xx] = clip8(s0 >> precisionBits)
			dst[3*xx+1] = clip8(s1 >> precisionBits)
			dst[3*xx+2] = clip8(s2 >> precisionBits)
		}
	}
	return out
}

func resampleVertical(src []uint8, inW, outH, ks int, bounds []int, k []int32) []uint8 {
	rowElems := inW * 3
	out := make([]uint8, rowElems*outH)
	acc := make([]int32, rowElems)
	for yy := 0; yy < outH; yy++ {
		ymin, ycnt := bounds[2*yy], bounds[2*yy+1]
		kk := k[yy*ks:]
		for i := range acc {
			acc[i] = 1 << (precisionBits - 1)
		}
		for y := 0; y < ycnt; y++ {
			row := src[(ymin+y)*rowElems : (ymin+y+1)*rowElems]
			wv := kk[y]
			for i, v := range row {
				acc[i] += int32(v) * wv
			}
		}
		dst := out[yy*rowElems:]
		for i, v := range acc {
			dst[i] = clip8(v >> precisionBits)
		}
	}
	return out
}

// ResizePad resizes src to w×h as img_tool::resize does: PadNone stretches;
// PadCeil and PadNearest keep the aspect ratio, fit the image inside w×h,
// centre it and fill the rest with color.
func ResizePad(src *RGB8, w, h int, algo Algo, pad Pad, color [3]uint8) (*RGB8, error) {
	if src.W == w && src.H == h {
		return &RGB8{W: w, H: h, Pix: append([]uint8(nil), src.Pix...)}, nil
	}
	if pad == PadNone {
		return Resize(src, w, h, algo)
	}
	if w <= 0 || w > MaxResizeSide || h <= 0 || h > MaxResizeSide {
		return nil, fmt.Errorf("resize target %dx%d is out of range (1..%d)", w, h, MaxResizeSide)
	}
	sw := float32(w) / float32(src.W)
	sh := float32(h) / float32(src.H)
	s := min(sw, sh)
	var nw, nh, ox, oy int
	if pad == PadNearest {
		nw = min(int(math.Round(float64(float32(src.W)*s))), w)
		nh = min(int(math.Round(float64(float32(src.H)*s))), h)
	} else {
		nw = min(int(math.Ceil(float64(float32(src.W)*s))), w)
		nh = min(int(math.Ceil(float64(float32(src.H)*s))), h)
	}
	r, err := Resize(src, nw, nh, algo)
	if err != nil {
		return nil, err
	}
	dst := NewRGB8(w, h)
	for i := 0; i < len(dst.Pix); i += 3 {
		dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2] = color[0], color[1], color[2]
	}
	if pad == PadNearest {
		ox = int(math.Round(float64(float32(w-nw) / 2)))
		oy = int(math.Round(float64(float32(h-nh) / 2)))
	} else {
		ox, oy = (w-nw)/2, (h-nh)/2
	}
	composite(dst, r, ox, oy)
	return dst, nil
}

// composite draws src into dst at (ox, oy), clipped to dst.
func composite(dst, src *RGB8, ox, oy int) {
	for y := 0; y < src.H; y++ {
		dy := y + oy
		if dy < 0 || dy >= dst.H {
			continue
		}
		for x := 0; x < src.W; x++ {
			dx := x + ox
			if dx < 0 || dx >= dst.W {
				continue
			}
			copy(dst.Pix[3*(dy*dst.W+dx):3*(dy*dst.W+dx)+3], src.Pix[3*(y*src.W+x):])
		}
	}
}

// Crop returns the w×h region of src at (x, y); it must lie inside src.
func Crop(src *RGB8, x, y, w, h int) (*RGB8, error) {
	if x < 0 || y < 0 || w <= 0 || h <= 0 || x+w > src.W || y+h > src.H {
		return nil, fmt.Errorf("crop %dx%d at (%d,%d) is outside the %dx%d image", w, h, x, y, src.W, src.H)
	}
	dst := NewRGB8(w, h)
	for i := 0; i < h; i++ {
		copy(dst.Pix[3*i*w:3*(i+1)*w], src.Pix[3*((y+i)*src.W+x):])
	}
	return dst, nil
}

// Normalize maps 8-bit RGB to planar float32 as clip_image_f32::from_u8 and
// normalize do: (v/255 − mean[c]) / std[c].
func Normalize(src *RGB8, mean, std [3]float32) *Image {
	n := src.W * src.H
	m := &Image{W: src.W, H: src.H, C: 3, Data: make([]float32, 3*n)}
	for i := 0; i < n; i++ {
		for c := 0; c < 3; c++ {
			v := float32(src.Pix[3*i+c]) / 255
			m.Data[c*n+i] = (v - mean[c]) / std[c]
		}
	}
	return m
}
