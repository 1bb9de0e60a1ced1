package preprocess

import (
	"fmt"
	"math"
)

// Params are the clip hparams llama.cpp's image preprocessors read. NewParams
// fills them for a projector as clip.cpp's loader does; the fields can be set
// directly for anything else.
type Params struct {
	Projector    string // clip.projector_type: "gemma3", "idefics3", "lfm2", "qwen2vl_merger", "qwen2.5vl_merger", "qwen3vl_merger"
	ImageSize    int    // clip.vision.image_size
	PatchSize    int    // clip.vision.patch_size
	NMerge       int    // patches merged per side (scale_factor / spatial_merge_size)
	LongestEdge  int    // clip.vision.preproc_image_size (idefics3)
	MinPixels    int    // ≤ 0: unset
	MaxPixels    int    // ≤ 0: unset
	Algo         Algo   // image_resize_algo
	Pad          Pad    // image_resize_pad
	PadColor     [3]uint8
	AlgoRefined  Algo // llava-uhd slicing: the refined image
	AlgoOverview Algo // llava-uhd slicing: the overview
	PadRefined   Pad
	PadOverview  Pad
	Mean, Std    [3]float32
}

// Options are the mmproj keys and user settings that change a projector's
// defaults; zero fields leave clip.cpp's defaults.
type Options struct {
	ScaleFactor      int // clip.vision.projector.scale_factor (gemma3, idefics3, lfm2)
	SpatialMergeSize int // clip.vision.spatial_merge_size (qwen-vl)
	PreprocImageSize int // clip.vision.preproc_image_size (idefics3's longest edge)
	MinTokens        int // --image-min-tokens
	MaxTokens        int // --image-max-tokens
}

// NewParams returns the preprocessing parameters clip.cpp sets for a
// projector given the mmproj's image size, patch size, mean and std.
func NewParams(projector string, imageSize, patchSize int, mean, std [3]float32, o Options) (Params, error) {
	if imageSize <= 0 || patchSize <= 0 {
		return Params{}, fmt.Errorf("projector %q: image size %d and patch size %d must be positive", projector, imageSize, patchSize)
	}
	p := Params{
		Projector: projector, ImageSize: imageSize, PatchSize: patchSize, NMerge: 1,
		MinPixels: -1, MaxPixels: -1,
		Algo: Bicubic, Pad: PadCeil, AlgoRefined: Bicubic, AlgoOverview: Bicubic, PadRefined: PadCeil, PadOverview: PadNone,
		Mean: mean, Std: std,
	}
	pick := func(v, def int) int {
		if v > 0 {
			return v
		}
		return def
	}
	// set_limit_image_tokens, both forms
	limits := func(minTok, maxTok int) {
		area := p.PatchSize * p.PatchSize * p.NMerge * p.NMerge
		p.MinPixels = pick(o.MinTokens, minTok) * area
		p.MaxPixels = pick(o.MaxTokens, maxTok) * area
	}
	custom := func() {
		area := p.PatchSize * p.PatchSize * p.NMerge * p.NMerge
		if o.MinTokens > 0 {
			p.MinPixels = o.MinTokens * area
		}
		if o.MaxTokens > 0 {
			p.MaxPixels = o.MaxTokens * area
		}
	}
	switch projector {
	case "gemma3":
		p.NMerge = pick(o.ScaleFactor, 4)
		p.Algo = Bilinear
	case "idefics3":
		p.Algo = Lanczos
		p.NMerge = pick(o.ScaleFactor, 1)
		p.LongestEdge = o.PreprocImageSize
		custom()
	case "lfm2":
		p.Algo, p.AlgoRefined, p.AlgoOverview = Bilinear, Bilinear, Bilinear
		p.NMerge = pick(o.ScaleFactor, 1)
		limits(64, 256)
	case "qwen2vl_merger", "qwen2.5vl_merger", "qwen3vl_merger":
		p.NMerge = pick(o.SpatialMergeSize, 2)
		p.Algo = Bicubic
		limits(8, 4096)
	default:
		return Params{}, fmt.Errorf("projector %q: no image preprocessing for it (have gemma3, idefics3, lfm2, qwen2vl_merger, qwen2.5vl_merger, qwen3vl_merger)", projector)
	}
	return p, nil
}

// Preprocessed is what a projector's preprocessor makes of one image: an
// optional overview (the downscaled whole image of the slicing families) and
// the entries to encode, with the grid the slices form.
type Preprocessed struct {
	Overview     *Image // nil when the family has none for this image
	Entries      []*Image
	GridX, GridY int
}

// PreprocessImage runs the image preprocessor llama.cpp's mtmd picks for
// p.Projector (fixed size for gemma3, idefics3's tiling, lfm2's smart resize
// and tiles, qwen-vl's dynamic size) on a decoded image.
func PreprocessImage(img *RGB8, p Params) (*Preprocessed, error) {
	if img == nil || img.W <= 0 || img.H <= 0 || len(img.Pix) != 3*img.W*img.H {
		return nil, fmt.Errorf("preprocess: image has no pixels")
	}
	if p.ImageSize <= 0 || p.PatchSize <= 0 || p.NMerge <= 0 {
		return nil, fmt.Errorf("preprocess %s: image size %d, patch size %d and merge %d must be positive", p.Projector, p.ImageSize, p.PatchSize, p.NMerge)
	}
	if img.W > 46000 || img.H > 46000 {
		return nil, fmt.Errorf("preprocess %s: image is %dx%d, over clip's 46000 a side", p.Projector, img.W, img.H)
	}
	var out Preprocessed
	add := func(r *RGB8, err error) error {
		if err != nil {
			return fmt.Errorf("preprocess %s: %w", p.Projector, err)
		}
		out.Entries = append(out.Entries, Normalize(r, p.Mean, p.Std))
		return nil
	}
	switch p.Projector {
	case "gemma3":
		if err := add(ResizePad(img, p.ImageSize, p.ImageSize, p.Algo, p.Pad, p.PadColor)); err != nil {
			return nil, err
		}
	case "qwen2vl_merger", "qwen2.5vl_merger", "qwen3vl_merger":
		if p.MinPixels <= 0 || p.MaxPixels <= 0 {
			return nil, fmt.Errorf("preprocess %s: min and max pixels must be set", p.Projector)
		}
		w, h := calcSizePreservedRatio(img.W, img.H, p.PatchSize*p.NMerge, p.MinPixels, p.MaxPixels, 0)
		if err := add(ResizePad(img, w, h, p.Algo, p.Pad, p.PadColor)); err != nil {
			return nil, err
		}
	case "idefics3":
		if err := idefics3(img, p, &out); err != nil {
			return nil, fmt.Errorf("preprocess %s: %w", p.Projector, err)
		}
	case "lfm2":
		if err := lfm2(img, p, &out); err != nil {
			return nil, fmt.Errorf("preprocess %s: %w", p.Projector, err)
		}
	default:
		return nil, fmt.Errorf("preprocess: no image preprocessing for projector %q", p.Projector)
	}
	return &out, nil
}

// calcSizePreservedRatio is img_tool::calc_size_preserved_ratio
// (transformers' smart_resize): the size nearest the original that keeps its
// aspect ratio, has sides a multiple of align and lies within the pixel
// bounds (≤ 0: none).
func calcSizePreservedRatio(width, height, align, minPixels, maxPixels, longestEdge int) (int, int) {
	if width <= 0 || height <= 0 {
		return 0, 0
	}
	f := float32(align)
	round := func(x float32) int { return int(math.Round(float64(x/f))) * align }
	ceil := func(x float32) int { return int(math.Ceil(float64(x/f))) * align }
	floor := func(x float32) int { return int(math.Floor(float64(x/f))) * align }
	var w, h int
	if longestEdge > 0 {
		scale := min(float32(longestEdge)/float32(width), float32(longestEdge)/float32(height))
		w, h = ceil(float32(width)*scale), ceil(float32(height)*scale)
	} else {
		w, h = max(align, round(float32(width))), max(align, round(float32(height)))
	}
	if maxPixels > 0 && h*w > maxPixels {
		beta := float32(math.Sqrt(float64(float32(height) * float32(width) / float32(maxPixels))))
		h = max(align, floor(float32(height)/beta))
		w = max(align, floor(float32(width)/beta))
	} else if minPixels > 0 && h*w < minPixels {
		beta := float32(math.Sqrt(float64(float32(minPixels) / (float32(height) * float32(width)))))
		h, w = ceil(float32(height)*beta), ceil(float32(width)*beta)
	}
	return w, h
}

// idefics3 is mtmd_image_preprocessor_idefics3.
func idefics3(img *RGB8, p Params, out *Preprocessed) error {
	tile := p.ImageSize
	if p.LongestEdge > 0 && p.MinPixels <= 0 && p.MaxPixels <= 0 {
		aspect := float64(img.W) / float64(img.H)
		var rw, rh int
		if img.W >= img.H {
			rw = p.LongestEdge
			rh = int(float64(p.LongestEdge) / aspect)
			rh += rh % 2
		} else {
			rh = p.LongestEdge
			rw = int(float64(p.LongestEdge) * aspect)
			rw += rw % 2
		}
		gx, gy := (rw+tile-1)/tile, (rh+tile-1)/tile
		resized, err := Resize(img, rw, rh, p.Algo)
		if err != nil {
			return err
		}
		refined, err := ResizePad(resized, gx*tile, gy*tile, p.Algo, PadNone, [3]uint8{})
		if err != nil {
			return err
		}
		ov, err := ResizePad(refined, tile, tile, p.Algo, PadNone, [3]uint8{})
		if err != nil {
			return err
		}
		out.Overview = Normalize(ov, p.Mean, p.Std)
		for y := 0; y < gy; y++ {
			for x := 0; x < gx; x++ {
				s, err := Crop(refined, x*tile, y*tile, tile, tile)
				if err != nil {
					return err
				}
				out.Entries = append(out.Entries, Normalize(s, p.Mean, p.Std))
			}
		}
		out.GridX, out.GridY = gx, gy
		return nil
	}
	rw, rh := calcSizePreservedRatio(img.W, img.H, tile, max(0, p.MinPixels), max(0, p.MaxPixels), p.LongestEdge)
	var slices []rect
	for y := 0; y < rh; y += tile {
		for x := 0; x < rw; x += tile {
			slices = append(slices, rect{x, y, min(tile, rw-x), min(tile, rh-y)})
		}
	}
	out.GridX = int(math.Ceil(float64(float32(rw) / float32(tile))))
	out.GridY = int(math.Ceil(float64(float32(rh) / float32(tile))))
	return sliceImage(img, p, tile, tile, rw, rh, slices, out, true)
}

type rect struct{ x, y, w, h int }

// sliceImage is llava-uhd's slice_image followed by the overview and slice
// appends: the overview resized to ow×oh, the slices cropped from the image
// resized to rw×rh. withOverview false appends the overview as an entry.
func sliceImage(img *RGB8, p Params, ow, oh, rw, rh int, slices []rect, out *Preprocessed, withOverview bool) error {
	ov, err := ResizePad(img, ow, oh, p.AlgoOverview, p.PadOverview, [3]uint8{})
	if err != nil {
		return err
	}
	if withOverview {
		out.Overview = Normalize(ov, p.Mean, p.Std)
	} else {
		out.Entries = append(out.Entries, Normalize(ov, p.Mean, p.Std))
	}
	if len(slices) == 0 {
		return nil
	}
	refined, err := ResizePad(img, rw, rh, p.AlgoRefined, p.PadRefined, [3]uint8{})
	if err != nil {
		return err
	}
	for _, s := range slices {
		c, err := Crop(refined, s.x, s.y, s.w, s.h)
		if err != nil {
			return err
		}
		out.Entries = append(out.Entries, Normalize(c, p.Mean, p.Std))
	}
	return nil
}

// LFM2's tiling constants (mtmd_image_preprocessor_lfm2, from LFM2.5-VL's
// processor_config.json).
const (
	lfm2MaxPixelsTolerance = 2.0
	lfm2TileSize           = 512
)

// lfm2 is mtmd_image_preprocessor_lfm2: one smart-resized image when it fits
// the token budget (within a 2× tolerance), else 512-pixel tiles on the grid
// closest to its aspect ratio plus the smart-resized thumbnail.
func lfm2(img *RGB8, p Params, out *Preprocessed) error {
	align := p.PatchSize * p.NMerge
	ow, oh := calcSizePreservedRatio(img.W, img.H, align, p.MinPixels, p.MaxPixels, 0)
	roundBy := func(x int) int { return int(math.RoundToEven(float64(float32(x))/float64(align))) * align }
	hb := max(p.PatchSize, roundBy(img.H))
	wb := max(p.PatchSize, roundBy(img.W))
	if float64(hb)*float64(wb) <= float64(p.MaxPixels)*lfm2MaxPixelsTolerance {
		return sliceImage(img, p, ow, oh, 0, 0, nil, out, false)
	}
	gw, gh := lfm2Grid(img.W, img.H)
	var slices []rect
	for r := 0; r < gh; r++ {
		for c := 0; c < gw; c++ {
			slices = append(slices, rect{c * lfm2TileSize, r * lfm2TileSize, lfm2TileSize, lfm2TileSize})
		}
	}
	out.GridX, out.GridY = gw, gh
	return sliceImage(img, p, ow, oh, lfm2TileSize*gw, lfm2TileSize*gh, slices, out, true)
}

// lfm2Grid is get_grid_layout: the (columns, rows) of 2..10 tiles whose
// aspect ratio is closest to the image's, ties going to the larger grid when
// the image has more than half its area.
func lfm2Grid(width, height int) (int, int) {
	type wh struct{ w, h int }
	// get_target_ratios: every (w, h) with 2..10 tiles, sorted by area with
	// std::sort; the order among equal areas is the one libstdc++'s
	// introsort leaves (it matters on exact aspect-ratio ties).
	ratios := [...]wh{
		{2, 1}, {1, 2}, {1, 3}, {3, 1}, {2, 2}, {4, 1}, {1, 4}, {1, 5}, {5, 1},
		{3, 2}, {2, 3}, {1, 6}, {6, 1}, {1, 7}, {7, 1}, {2, 4}, {4, 2}, {1, 8}, {8, 1},
		{3, 3}, {1, 9}, {9, 1}, {10, 1}, {1, 10}, {5, 2}, {2, 5},
	}
	aspect := float32(width) / float32(height)
	bestDiff := float32(math.MaxFloat32)
	best := wh{1, 1}
	area := float32(width * height)
	for _, r := range ratios {
		target := float32(r.w) / float32(r.h)
		d := float32(math.Abs(float64(aspect - target)))
		if d < bestDiff {
			bestDiff, best = d, r
		} else if d == bestDiff {
			if area > 0.5*float32(lfm2TileSize*lfm2TileSize*r.w*r.h) {
				best = r
			}
		}
	}
	return best.w, best.h
}
