package preprocess

import "math"

// Resample converts mono samples from one rate to another exactly as the
// ma_decoder of llama.cpp's mtmd-helper.cpp does: miniaudio's linear resampler
// (rates reduced by their gcd, linear interpolation, a 4th-order Butterworth
// low-pass of two biquads at min(from, to)/2, run on the input when
// downsampling and on the output when upsampling), producing
// ma_calculate_frame_count_after_resampling frames, zero-filled past what the
// resampler emits. Equal rates return the samples unchanged.
func Resample(pcm []float32, from, to int) []float32 {
	if from == to || len(pcm) == 0 || from <= 0 || to <= 0 {
		return append([]float32(nil), pcm...)
	}
	out := make([]float32, framesAfterResampling(uint64(to), uint64(from), uint64(len(pcm))))
	g := gcd(from, to)
	in, outRate := uint32(from/g), uint32(to/g)
	lpf := newLowPass4(float64(max(in, outRate)), float64(min(in, outRate))*0.5)
	advInt, advFrac := in/outRate, in%outRate
	timeInt, timeFrac := uint32(1), uint32(0)
	var x0, x1 float32
	down := in > outRate
	next := 0
	for k := range out {
		for timeInt > 0 && next < len(pcm) {
			x0, x1 = x1, pcm[next]
			if down {
				x1 = lpf.process(x1)
			}
			next++
			timeInt--
		}
		if timeInt > 0 {
			break // out of input: the rest stays zero, as in the decoder's buffer
		}
		a := float32(timeFrac) / float32(outRate)
		y := x0 + float32((x1-x0)*a) // ma_mix_f32_fast
		if !down {
			y = lpf.process(y)
		}
		out[k] = y
		timeInt += advInt
		timeFrac += advFrac
		if timeFrac >= outRate {
			timeFrac -= outRate
			timeInt++
		}
	}
	return out
}

// framesAfterResampling is miniaudio's ma_calculate_frame_count_after_resampling.
func framesAfterResampling(rateOut, rateIn, n uint64) uint64 {
	if rateOut == rateIn {
		return n
	}
	out := n * rateOut / rateIn
	fromFrac := out * (rateIn / rateOut) / rateOut
	prelim := out*(rateIn%rateOut) + fromFrac
	if prelim <= n {
		out++
	}
	return out
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// biquad is miniaudio's ma_biquad in f32 (direct form 2 transposed).
type biquad struct {
	b0, b1, b2, a1, a2 float32
	r1, r2             float32
}

func (q *biquad) process(x float32) float32 {
	// explicit float32 conversions keep each product rounded, as the C code
	// (compiled without FMA contraction) rounds it
	y := float32(q.b0*x) + q.r1
	q.r1 = float32(q.b1*x) - float32(q.a1*y) + q.r2
	q.r2 = float32(q.b2*x) - float32(q.a2*y)
	return y
}

// lowPass4 is miniaudio's ma_lpf of order 4: two ma_lpf2 sections with the
// Butterworth q of each.
type lowPass4 [2]biquad

func newLowPass4(sampleRate, cutoff float64) *lowPass4 {
	var f lowPass4
	cosd := func(x float64) float64 { return math.Sin(math.Pi*0.5 - x) } // ma_cosd
	for i := range f {
		a := float64(1+i*2) * (math.Pi / (4 * 2))
		q := 1 / (2 * cosd(a))
		w := 2 * math.Pi * cutoff / sampleRate
		s, c := math.Sin(w), cosd(w)
		al := s / (2 * q)
		b0, b1, b2 := (1-c)/2, 1-c, (1-c)/2
		a0, a1, a2 := 1+al, -2*c, 1-al
		f[i] = biquad{b0: float32(b0 / a0), b1: float32(b1 / a0), b2: float32(b2 / a0), a1: float32(a1 / a0), a2: float32(a2 / a0)}
	}
	return &f
}

func (f *lowPass4) process(x float32) float32 {
	return f[1].process(f[0].process(x))
}
