package ggml

import "math"

// groupMaxEps is ggml's GROUP_MAX_EPS: groups whose largest magnitude is
// below it quantize to zero.
const groupMaxEps = 1e-15

// sqrt32 is a correctly rounded float32 square root (as C's sqrtf).
func sqrt32(f float32) float32 { return float32(math.Sqrt(float64(f))) }

// makeQKX2Quants fits x ≈ scale*L - min with 0 <= L <= nmax, searching
// nstep+1 candidate scales around nmax/(max-min) for the least weighted
// error (ggml's make_qkx2_quants). It returns the scale and the positive
// offset the_min. Every operation is rounded to float32 as in C.
func makeQKX2Quants(nmax int, x, weights []float32, L, Laux []uint8,
	rmin, rdelta float32, nstep int, useMad bool) (scale, theMin float32) {
	n := len(x)
	lo, hi := x[0], x[0]
	sumW := weights[0]
	sumX := float32(sumW * x[0])
	for i := 1; i < n; i++ {
		if x[i] < lo {
			lo = x[i]
		}
		if x[i] > hi {
			hi = x[i]
		}
		w := weights[i]
		sumW += w
		sumX += float32(w * x[i])
	}
	if lo > 0 {
		lo = 0
	}
	if hi == lo {
		clear(L[:n])
		return 0, -lo
	}
	fmax := float32(nmax)
	iscale := fmax / (hi - lo)
	scale = 1 / iscale
	var bestError float32
	for i := 0; i < n; i++ {
		l := nearestInt(float32(iscale * float32(x[i]-lo)))
		L[i] = uint8(max(0, min(nmax, l)))
		diff := float32(float32(scale*float32(L[i]))+lo) - x[i]
		if useMad {
			diff = abs32(diff)
		} else {
			diff = float32(diff * diff)
		}
		bestError += float32(weights[i] * diff)
	}
	if nstep < 1 {
		return scale, -lo
	}
	for is := 0; is <= nstep; is++ {
		iscale = float32(float32(rmin+float32(rdelta*float32(is)))+fmax) / (hi - lo)
		var sumL, sumL2, sumXL float32
		for i := 0; i < n; i++ {
			l := nearestInt(float32(iscale * float32(x[i]-lo)))
			l = max(0, min(nmax, l))
			Laux[i] = uint8(l)
			fl := float32(l)
			wl := float32(weights[i] * fl)
			sumL += wl
			sumL2 += float32(wl * fl)
			sumXL += float32(wl * x[i])
		}
		D := float32(sumW*sumL2) - float32(sumL*sumL)
		if D > 0 {
			thisScale := (float32(sumW*sumXL) - float32(sumX*sumL)) / D
			thisMin := (float32(sumL2*sumX) - float32(sumL*sumXL)) / D
			if thisMin > 0 {
				thisMin = 0
				thisScale = sumXL / sumL2
			}
			var curError float32
			for i := 0; i < n; i++ {
				diff := float32(float32(thisScale*float32(Laux[i]))+thisMin) - x[i]
				if useMad {
					diff = abs32(diff)
				} else {
					diff = float32(diff * diff)
				}
				curError += float32(weights[i] * diff)
			}
			if curError < bestError {
				copy(L[:n], Laux[:n])
				bestError = curError
				scale = thisScale
				lo = thisMin
			}
		}
	}
	return scale, -lo
}

// makeQXQuants fits x ≈ scale*(L-nmax) with 0 <= L < 2*nmax, refining the
// scale over 18 candidates for the least x²-weighted error (ggml's
// make_qx_quants with rmse_type 1 and no importance weights).
func makeQXQuants(nmax int, x []float32, L []int8) float32 {
	n := len(x)
	amax, mx := absMax(x)
	if amax < groupMaxEps {
		clear(L[:n])
		return 0
	}
	fmax := float32(nmax)
	iscale := -fmax / mx
	var sumlx, suml2 float32
	for i := 0; i < n; i++ {
		l := nearestInt(float32(iscale * x[i]))
		l = max(-nmax, min(nmax-1, l))
		L[i] = int8(l + nmax)
		w := float32(x[i] * x[i])
		fl := float32(l)
		sumlx += float32(float32(w*x[i]) * fl)
		suml2 += float32(float32(w*fl) * fl)
	}
	var scale float32
	if suml2 != 0 {
		scale = sumlx / suml2
	}
	best := float32(scale * sumlx)
	for is := -9; is <= 9; is++ {
		if is == 0 {
			continue
		}
		iscale = -float32(fmax+float32(0.1*float32(is))) / mx
		sumlx, suml2 = 0, 0
		for i := 0; i < n; i++ {
			l := nearestInt(float32(iscale * x[i]))
			l = max(-nmax, min(nmax-1, l))
			w := float32(x[i] * x[i])
			fl := float32(l)
			sumlx += float32(float32(w*x[i]) * fl)
			suml2 += float32(float32(w*fl) * fl)
		}
		if suml2 > 0 && float32(sumlx*sumlx) > float32(best*suml2) {
			for i := 0; i < n; i++ {
				l := nearestInt(float32(iscale * x[i]))
				L[i] = int8(nmax + max(-nmax, min(nmax-1, l)))
			}
			scale = sumlx / suml2
			best = float32(scale * sumlx)
		}
	}
	return scale
}

// packScalesK4 stores the 6-bit scale ls and min lm of sub-block j into the
// 12 packed bytes of a Q4_K or Q5_K block (the inverse of ScaleMinK4); the
// bytes must start zeroed for j >= 4.
func packScalesK4(j int, ls, lm uint8, s *[kScaleSize]byte) {
	if j < 4 {
		s[j] = ls
		s[j+4] = lm
		return
	}
	s[j+4] = ls&0xF | (lm&0xF)<<4
	s[j-4] |= (ls >> 4) << 6
	s[j] |= (lm >> 4) << 6
}

// quantScalesK4 runs the shared first half of quantize_row_q{4,5}_K_ref on
// one super-block: per 32-element sub-block fits, 6-bit scales and mins, and
// the f16 super-scales. It then re-quantizes x against the stored scales into
// L (0..nmax), as ggml does.
func quantScalesK4(x *[QKK]float32, y []byte, nmax int, rmin, rdelta float32, nstep int, L *[QKK]uint8) {
	var (
		laux    [32]uint8
		weights [32]float32
		mins    [QKK / 32]float32
		scales  [QKK / 32]float32
	)
	var maxScale, maxMin float32
	for j := 0; j < QKK/32; j++ {
		xs := x[32*j : 32*j+32]
		var sumX2 float32
		for _, v := range xs {
			sumX2 += float32(v * v)
		}
		avX := sqrt32(sumX2 / 32)
		for l, v := range xs {
			weights[l] = avX + abs32(v)
		}
		scales[j], mins[j] = makeQKX2Quants(nmax, xs, weights[:], L[32*j:32*j+32], laux[:], rmin, rdelta, nstep, false)
		maxScale = max(maxScale, scales[j])
		maxMin = max(maxMin, mins[j])
	}
	var invScale, invMin float32
	if maxScale > 0 {
		invScale = 63 / maxScale
	}
	if maxMin > 0 {
		invMin = 63 / maxMin
	}
	sc := (*[kScaleSize]byte)(y[4:])
	clear(sc[:])
	for j := 0; j < QKK/32; j++ {
		ls := min(63, uint8(nearestInt(float32(invScale*scales[j]))))
		lm := min(63, uint8(nearestInt(float32(invMin*mins[j]))))
		packScalesK4(j, ls, lm, sc)
	}
	putF16(y[0:], maxScale/63)
	putF16(y[2:], maxMin/63)
	d, dmin := f16At(y[0:]), f16At(y[2:])
	for j := 0; j < QKK/32; j++ {
		s, m := ScaleMinK4(j, sc)
		dj := float32(d * float32(s))
		if dj == 0 {
			continue
		}
		dm := float32(dmin * float32(m))
		for ii := 0; ii < 32; ii++ {
			l := nearestInt(float32(x[32*j+ii]+dm) / dj)
			L[32*j+ii] = uint8(max(0, min(nmax, l)))
		}
	}
}

func quantQ4_K(src []float32, dst []byte) {
	var L [QKK]uint8
	for i := 0; i < len(src)/QKK; i++ {
		x := (*[QKK]float32)(src[i*QKK:])
		y := (*[sizeQ4_K]byte)(dst[i*sizeQ4_K:])
		quantScalesK4(x, y[:], 15, -1, 0.1, 20, &L)
		for g := 0; g < 4; g++ {
			q := (*[32]byte)(y[offQ4KQs+32*g:])
			for l := range q {
				q[l] = L[64*g+l] | L[64*g+l+32]<<4
			}
		}
	}
}

func quantQ5_K(src []float32, dst []byte) {
	var L [QKK]uint8
	for i := 0; i < len(src)/QKK; i++ {
		x := (*[QKK]float32)(src[i*QKK:])
		y := (*[sizeQ5_K]byte)(dst[i*sizeQ5_K:])
		quantScalesK4(x, y[:], 31, -0.5, 0.1, 15, &L)
		qh := (*[32]byte)(y[offQ5KQh:])
		clear(qh[:])
		m1, m2 := byte(1), byte(2)
		for g := 0; g < 4; g++ {
			ql := (*[32]byte)(y[offQ5KQs+32*g:])
			for j := range ql {
				l1, l2 := L[64*g+j], L[64*g+j+32]
				if l1 > 15 {
					l1 -= 16
					qh[j] |= m1
				}
				if l2 > 15 {
					l2 -= 16
					qh[j] |= m2
				}
				ql[j] = l1 | l2<<4
			}
			m1 <<= 2
			m2 <<= 2
		}
	}
}

func quantQ6_K(src []float32, dst []byte) {
	var (
		L      [QKK]int8
		scales [QKK / 16]float32
	)
	for i := 0; i < len(src)/QKK; i++ {
		x := (*[QKK]float32)(src[i*QKK:])
		y := (*[sizeQ6_K]byte)(dst[i*sizeQ6_K:])
		var maxScale, maxAbsScale float32
		for ib := 0; ib < QKK/16; ib++ {
			s := makeQXQuants(32, x[16*ib:16*ib+16], L[16*ib:16*ib+16])
			scales[ib] = s
			if a := abs32(s); a > maxAbsScale {
				maxAbsScale, maxScale = a, s
			}
		}
		if maxAbsScale < groupMaxEps {
			clear(y[:])
			continue
		}
		iscale := -128 / maxScale
		putF16(y[offQ6KD:], 1/iscale)
		for ib := 0; ib < QKK/16; ib++ {
			y[offQ6KScales+ib] = byte(int8(min(127, nearestInt(float32(iscale*scales[ib])))))
		}
		d := f16At(y[offQ6KD:])
		for j := 0; j < QKK/16; j++ {
			dj := float32(d * float32(int8(y[offQ6KScales+j])))
			if dj == 0 {
				continue
			}
			for ii := 0; ii < 16; ii++ {
				l := nearestInt(x[16*j+ii] / dj)
				L[16*j+ii] = int8(max(-32, min(31, l)) + 32)
			}
		}
		for h := 0; h < 2; h++ {
			ql := (*[64]byte)(y[64*h:])
			qh := (*[32]byte)(y[offQ6KQh+32*h:])
			lh := (*[128]int8)(L[128*h:])
			for l := 0; l < 32; l++ {
				q1, q2, q3, q4 := byte(lh[l]), byte(lh[l+32]), byte(lh[l+64]), byte(lh[l+96])
				ql[l] = q1&0xF | (q3&0xF)<<4
				ql[l+32] = q2&0xF | (q4&0xF)<<4
				qh[l] = q1>>4 | (q2>>4)<<2 | (q3>>4)<<4 | (q4>>4)<<6
			}
		}
	}
}
