package preprocess

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/gif"  // GIF decoder
	_ "image/jpeg" // JPEG decoder
	_ "image/png"  // PNG decoder

	_ "golang.org/x/image/webp" // WebP decoder

	"github.com/litert-go/litert-go/encoder/preprocess/internal/stbjpeg"
)

// RGB8 is an 8-bit RGB image, pixels row by row, RGBRGB… (llama.cpp's
// clip_image_u8 layout).
type RGB8 struct {
	W, H int
	Pix  []uint8 // len 3·W·H
}

// NewRGB8 returns a black w×h image.
func NewRGB8(w, h int) *RGB8 {
	return &RGB8{W: w, H: h, Pix: make([]uint8, 3*w*h)}
}

// Image is a normalized float image in planar layout: channel c, row y,
// column x is Data[(c·H+y)·W+x].
type Image struct {
	W, H, C int
	Data    []float32
}

// HWC returns the image's values interleaved (row by row, RGBRGB…), the
// order clip_image_f32 keeps them in.
func (m *Image) HWC() []float32 {
	out := make([]float32, len(m.Data))
	n := m.W * m.H
	for c := 0; c < m.C; c++ {
		for i := 0; i < n; i++ {
			out[i*m.C+c] = m.Data[c*n+i]
		}
	}
	return out
}

// ErrImageTooLarge is returned (wrapped) when an image's header declares more
// pixels than the limits allow; nothing is decoded then.
var ErrImageTooLarge = errors.New("image too large")

// DecodeImage decodes a PNG, JPEG, GIF or WebP image to RGB. The header is
// read first and an image with a zero side, a side over lim.MaxSide or more
// than lim.MaxPixels pixels is refused before any pixel is decoded. Alpha is
// dropped, as stb_image's 3-channel load (mtmd-helper.cpp) drops it.
func DecodeImage(data []byte, lim Limits) (*RGB8, error) {
	lim = lim.withDefaults()
	if err := lim.checkBytes("image", len(data)); err != nil {
		return nil, err
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("image header: %w", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, fmt.Errorf("%s image is %d×%d: it has no pixels", format, cfg.Width, cfg.Height)
	}
	if cfg.Width > lim.MaxSide || cfg.Height > lim.MaxSide || int64(cfg.Width)*int64(cfg.Height) > lim.MaxPixels {
		return nil, fmt.Errorf("%s image is %d×%d, over the limit of %d pixels a side and %d in all: %w",
			format, cfg.Width, cfg.Height, lim.MaxSide, lim.MaxPixels, ErrImageTooLarge)
	}
	var img image.Image
	if format == "jpeg" {
		img, err = stbjpeg.Decode(bytes.NewReader(data)) // stb_image's IDCT
	} else {
		img, _, err = image.Decode(bytes.NewReader(data))
	}
	if err != nil {
		return nil, fmt.Errorf("%s image: %w", format, err)
	}
	b := img.Bounds()
	if b.Dx() != cfg.Width || b.Dy() != cfg.Height {
		return nil, fmt.Errorf("%s image decodes to %d×%d but its header says %d×%d", format, b.Dx(), b.Dy(), cfg.Width, cfg.Height)
	}
	return toRGB8(img), nil
}

// toRGB8 converts a decoded image to 8-bit RGB. JPEG's YCbCr goes through
// stbYCbCr, the conversion stb_image (llama.cpp's decoder) does; with the
// planes from stbjpeg the result is stb_image's byte for byte.
func toRGB8(img image.Image) *RGB8 {
	if y, ok := img.(*image.YCbCr); ok {
		return stbYCbCr(y)
	}
	b := img.Bounds()
	out := NewRGB8(b.Dx(), b.Dy())
	i := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			out.Pix[i], out.Pix[i+1], out.Pix[i+2] = c.R, c.G, c.B
			i += 3
		}
	}
	return out
}

// stbYCbCr converts JPEG YCbCr planes to RGB as stb_image does: chroma is
// upsampled with its "fancy" triangle filter (stbi__resample_row_hv_2 and
// friends, driven row by row as load_jpeg_image drives them) and converted
// with its 20-bit fixed-point stbi__YCbCr_to_RGB_row. (Go's image/jpeg
// upsamples by repetition, tens of levels off llama.cpp's at chroma edges.)
func stbYCbCr(m *image.YCbCr) *RGB8 {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	hs, vs := 1, 1
	switch m.SubsampleRatio {
	case image.YCbCrSubsampleRatio422:
		hs = 2
	case image.YCbCrSubsampleRatio420:
		hs, vs = 2, 2
	case image.YCbCrSubsampleRatio440:
		vs = 2
	case image.YCbCrSubsampleRatio411:
		hs = 4
	case image.YCbCrSubsampleRatio410:
		hs, vs = 4, 2
	}
	wLo := (w + hs - 1) / hs
	hLo := (h + vs - 1) / vs
	cb0 := m.COffset(m.Rect.Min.X, m.Rect.Min.Y)
	y0 := m.YOffset(m.Rect.Min.X, m.Rect.Min.Y)
	out := NewRGB8(w, h)
	bufCb := make([]uint8, wLo*hs+3)
	bufCr := make([]uint8, wLo*hs+3)
	// the resampler state of load_jpeg_image (one for both chroma planes:
	// they share a sampling factor in every ratio Go decodes)
	ystep, ypos := vs>>1, 0
	line0, line1 := 0, 0
	for j := 0; j < h; j++ {
		near, far := line0, line1
		if ystep >= vs>>1 {
			near, far = line1, line0
		}
		cb := resampleRow(bufCb, m.Cb[cb0+near*m.CStride:], m.Cb[cb0+far*m.CStride:], wLo, hs, vs)
		cr := resampleRow(bufCr, m.Cr[cb0+near*m.CStride:], m.Cr[cb0+far*m.CStride:], wLo, hs, vs)
		if ystep++; ystep >= vs {
			ystep = 0
			line0 = line1
			if ypos++; ypos < hLo {
				line1++
			}
		}
		yrow := m.Y[y0+j*m.YStride:]
		o := out.Pix[3*w*j:]
		for i := 0; i < w; i++ {
			yf := int32(yrow[i])<<20 + 1<<19
			crv := int32(cr[i]) - 128
			cbv := int32(cb[i]) - 128
			r := (yf + crv*stbFix140200) >> 20
			g := (yf + crv*-stbFix071414 + int32(uint32(cbv*-stbFix034414)&0xffff0000)) >> 20
			b := (yf + cbv*stbFix177200) >> 20
			o[3*i], o[3*i+1], o[3*i+2] = clampU8(r), clampU8(g), clampU8(b)
		}
	}
	return out
}

// stb_image's stbi__float2fixed constants: ((int)(x*4096+0.5)) << 8.
const (
	stbFix140200 = 5743 << 8
	stbFix071414 = 2925 << 8
	stbFix034414 = 1410 << 8
	stbFix177200 = 7258 << 8
)

func clampU8(v int32) uint8 {
	if v < 0 {
		return 0
	}
	if v > 255 {
		return 255
	}
	return uint8(v)
}

// resampleRow is stb_image's row resampler for one output row: near is the
// chroma row closest to it, far the next one away (they are the same row
// when the plane is not subsampled vertically).
func resampleRow(out, near, far []uint8, w, hs, vs int) []uint8 {
	div4 := func(x int) uint8 { return uint8(x >> 2) }
	switch {
	case hs == 1 && vs == 1:
		return near
	case hs == 1 && vs == 2: // stbi__resample_row_v_2
		for i := 0; i < w; i++ {
			out[i] = div4(3*int(near[i]) + int(far[i]) + 2)
		}
	case hs == 2 && vs == 1: // stbi__resample_row_h_2
		in := near
		if w == 1 {
			out[0], out[1] = in[0], in[0]
			return out
		}
		out[0] = in[0]
		out[1] = div4(int(in[0])*3 + int(in[1]) + 2)
		i := 1
		for ; i < w-1; i++ {
			n := 3*int(in[i]) + 2
			out[2*i] = div4(n + int(in[i-1]))
			out[2*i+1] = div4(n + int(in[i+1]))
		}
		out[2*i] = div4(int(in[w-2])*3 + int(in[w-1]) + 2)
		out[2*i+1] = in[w-1]
	case hs == 2 && vs == 2: // stbi__resample_row_hv_2
		if w == 1 {
			v := div4(3*int(near[0]) + int(far[0]) + 2)
			out[0], out[1] = v, v
			return out
		}
		t1 := 3*int(near[0]) + int(far[0])
		out[0] = div4(t1 + 2)
		for i := 1; i < w; i++ {
			t0 := t1
			t1 = 3*int(near[i]) + int(far[i])
			out[2*i-1] = uint8((3*t0 + t1 + 8) >> 4)
			out[2*i] = uint8((3*t1 + t0 + 8) >> 4)
		}
		out[2*w-1] = div4(t1 + 2)
	default: // stbi__resample_row_generic: nearest
		for i := 0; i < w; i++ {
			for j := 0; j < hs; j++ {
				out[i*hs+j] = near[i]
			}
		}
	}
	return out
}
