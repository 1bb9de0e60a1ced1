package ggml

import "math"

// Quantizers of the low-bit types, as ggml's ggml_quantize_chunk runs them
// without an importance matrix (what llama-quantize does without
// --imatrix): quantize_row_q2_K_ref, quantize_row_q3_K_ref,
// quantize_iq4_nl / quantize_iq4_xs (7 scale tries) and
// quantize_row_mxfp4_ref. Every float operation is rounded to float32 in C's
// order so the bytes equal llama.cpp's.

func quantQ2_K(src []float32, dst []byte) {
	var L [QKK]uint8
	var laux [16]uint8
	var weights [16]float32
	var mins, scales [QKK / 16]float32
	const q4scale = 15
	for i := 0; i < len(src)/QKK; i++ {
		x := (*[QKK]float32)(src[i*QKK:])
		b := (*[sizeQ2_K]byte)(dst[i*sizeQ2_K:])
		var maxScale, maxMin float32
		for j := 0; j < QKK/16; j++ {
			xj := x[16*j : 16*j+16]
			for l, v := range xj {
				weights[l] = abs32(v)
			}
			scales[j], mins[j] = makeQKX2Quants(3, xj, weights[:], L[16*j:16*j+16], laux[:], -0.5, 0.1, 15, true)
			maxScale = max(maxScale, scales[j])
			maxMin = max(maxMin, mins[j])
		}
		sc := b[:QKK/16]
		clear(sc)
		if maxScale > 0 {
			iscale := q4scale / maxScale
			for j := range sc {
				sc[j] = uint8(nearestInt(float32(iscale * scales[j])))
			}
			putF16(b[offQ2KD:], maxScale/q4scale)
		} else {
			putF16(b[offQ2KD:], 0)
		}
		if maxMin > 0 {
			iscale := q4scale / maxMin
			for j := range sc {
				sc[j] |= uint8(nearestInt(float32(iscale*mins[j])) << 4)
			}
			putF16(b[offQ2KDmin:], maxMin/q4scale)
		} else {
			putF16(b[offQ2KDmin:], 0)
		}
		d, dmin := f16At(b[offQ2KD:]), f16At(b[offQ2KDmin:])
		for j := range sc {
			dl := d * float32(sc[j]&0xF)
			if dl == 0 {
				continue
			}
			dm := dmin * float32(sc[j]>>4)
			for ii := 0; ii < 16; ii++ {
				L[16*j+ii] = uint8(max(0, min(3, nearestInt(float32(x[16*j+ii]+dm)/dl))))
			}
		}
		packQ2(&L, (*[QKK / 4]byte)(b[offQ2KQs:]))
	}
}

// packQ2 stores the 2-bit values L as Q2_K and Q3_K do: within each half of
// 128, element 32k+l in bits 2k..2k+1 of byte l.
func packQ2(L *[QKK]uint8, qs *[QKK / 4]byte) {
	for j := 0; j < QKK; j += 128 {
		for l := 0; l < 32; l++ {
			qs[j/4+l] = L[j+l] | L[j+l+32]<<2 | L[j+l+64]<<4 | L[j+l+96]<<6
		}
	}
}

// makeQ3Quants fits x ≈ scale*L with -nmax <= L < nmax, refining L for the
// x²-weighted error (ggml's make_q3_quants with do_rmse); L is returned
// offset by nmax.
func makeQ3Quants(nmax int, x []float32, L []int8) float32 {
	var mx, amax float32
	for _, v := range x {
		if a := abs32(v); a > amax {
			amax, mx = a, v
		}
	}
	if amax < groupMaxEps {
		clear(L[:len(x)])
		return 0
	}
	iscale := -float32(nmax) / mx
	var sumlx, suml2 float32
	for i, v := range x {
		l := max(-nmax, min(nmax-1, nearestInt(float32(iscale*v))))
		L[i] = int8(l)
		w := float32(v * v)
		sumlx += float32(float32(w*v) * float32(l))
		suml2 += float32(float32(w*float32(l)) * float32(l))
	}
	for itry := 0; itry < 5; itry++ {
		changed := 0
		for i, v := range x {
			w := float32(v * v)
			li := float32(L[i])
			slx := sumlx - float32(float32(w*v)*li)
			if slx > 0 {
				sl2 := suml2 - float32(float32(w*li)*li)
				nl := max(-nmax, min(nmax-1, nearestInt(float32(v*sl2)/slx)))
				if nl != int(L[i]) {
					fl := float32(nl)
					slx += float32(float32(w*v) * fl)
					sl2 += float32(float32(w*fl) * fl)
					if sl2 > 0 && float32(float32(slx*slx)*suml2) > float32(float32(sumlx*sumlx)*sl2) {
						L[i], sumlx, suml2 = int8(nl), slx, sl2
						changed++
					}
				}
			}
		}
		if changed == 0 {
			break
		}
	}
	for i := range x {
		L[i] += int8(nmax)
	}
	if suml2 > 0 {
		return sumlx / suml2
	}
	return 0
}

func quantQ3_K(src []float32, dst []byte) {
	var L8 [QKK]int8
	var L [QKK]uint8
	var scales [QKK / 16]float32
	for i := 0; i < len(src)/QKK; i++ {
		x := (*[QKK]float32)(src[i*QKK:])
		b := (*[sizeQ3_K]byte)(dst[i*sizeQ3_K:])
		var maxScale, amax float32
		for j := 0; j < QKK/16; j++ {
			scales[j] = makeQ3Quants(4, x[16*j:16*j+16], L8[16*j:16*j+16])
			if a := abs32(scales[j]); a > amax {
				amax, maxScale = a, scales[j]
			}
		}
		s := (*[12]byte)(b[offQ3KScales:])
		clear(s[:])
		if maxScale != 0 {
			iscale := -32 / maxScale
			for j := 0; j < QKK/16; j++ {
				l := int8(nearestInt(float32(iscale * scales[j])))
				l = max(-32, min(31, l)) + 32
				if j < 8 {
					s[j] = byte(l) & 0xF
				} else {
					s[j-8] |= (byte(l) & 0xF) << 4
				}
				l >>= 4
				s[j%4+8] |= byte(l) << (2 * (j / 4))
			}
			putF16(b[offQ3KD:], 1/iscale)
		} else {
			putF16(b[offQ3KD:], 0)
		}
		d := f16At(b[offQ3KD:])
		sc := ScalesQ3K(s)
		for j := 0; j < QKK/16; j++ {
			dl := d * float32(sc[j])
			if dl == 0 {
				continue
			}
			for ii := 0; ii < 16; ii++ {
				L8[16*j+ii] = int8(max(-4, min(3, nearestInt(x[16*j+ii]/dl))) + 4)
			}
		}
		hm := (*[QKK / 8]byte)(b[0:])
		clear(hm[:])
		for j := 0; j < QKK; j++ {
			L[j] = uint8(L8[j])
			if L[j] > 3 {
				hm[j%(QKK/8)] |= 1 << (j / (QKK / 8))
				L[j] -= 4
			}
		}
		packQ2(&L, (*[QKK / 4]byte)(b[offQ3KQs:]))
	}
}

// bestIndexInt8 returns the index of the value of the sorted table val
// nearest to x (ggml's best_index_int8; ties go up).
func bestIndexInt8(val *[16]int8, x float32) uint8 {
	if x <= float32(val[0]) {
		return 0
	}
	if x >= float32(val[15]) {
		return 15
	}
	ml, mu := 0, 15
	for mu-ml > 1 {
		mav := (ml + mu) / 2
		if x < float32(val[mav]) {
			mu = mav
		} else {
			ml = mav
		}
	}
	if x-float32(val[mu-1]) < float32(val[mu])-x {
		return uint8(mu - 1)
	}
	return uint8(mu)
}

// iq4NLTries is the number of scale tries either side of the first guess
// that ggml's quantize_iq4_nl and quantize_iq4_xs make.
const iq4NLTries = 7

// quantIQ4 runs ggml's quantize_row_iq4_nl_impl without importance weights
// on one super-block x of 32-element blocks: len(x) == 32 for IQ4_NL (d,
// no sub-scales) or 256 for IQ4_XS (d, scales_h, scales_l). It writes the
// f16 scale to dh and the nibbles to q4, and for IQ4_XS the sub-scales.
func quantIQ4(x []float32, dh []byte, q4 []byte, scalesH, scalesL []byte) {
	var L [QKK]uint8
	var weight [32]float32
	var scales [QKK / 32]float32
	values := &kvaluesIQ4NL
	v0 := float32(values[0])
	clear(q4[:len(x)/2])
	putF16(dh, 0)
	var maxScale, amaxScale float32
	nb := len(x) / 32
	for ib := 0; ib < nb; ib++ {
		xb := x[32*ib : 32*ib+32]
		Lb := L[32*ib : 32*ib+32]
		for j, v := range xb {
			weight[j] = v * v
		}
		var amax, mx float32
		for _, v := range xb {
			if a := abs32(v); a > amax {
				amax, mx = a, v
			}
		}
		if amax < groupMaxEps {
			scales[ib] = 0
			continue
		}
		d := -mx / v0
		id := 1 / d
		var sumqx, sumq2 float32
		for j, v := range xb {
			l := bestIndexInt8(values, float32(id*v))
			Lb[j] = l
			q := float32(values[l])
			w := weight[j]
			sumqx += float32(float32(w*q) * v)
			sumq2 += float32(float32(w*q) * q)
		}
		d = 0
		if sumq2 > 0 {
			d = sumqx / sumq2
		}
		best := float32(d * sumqx)
		for itry := -iq4NLTries; itry <= iq4NLTries; itry++ {
			id = float32(float32(itry)+v0) / mx
			sumqx, sumq2 = 0, 0
			for j, v := range xb {
				q := float32(values[bestIndexInt8(values, float32(id*v))])
				w := weight[j]
				sumqx += float32(float32(w*q) * v)
				sumq2 += float32(float32(w*q) * q)
			}
			if sumq2 > 0 && float32(sumqx*sumqx) > float32(best*sumq2) {
				d = sumqx / sumq2
				best = float32(d * sumqx)
			}
		}
		scales[ib] = d
		if a := abs32(d); a > amaxScale {
			amaxScale, maxScale = a, d
		}
	}
	if nb > 1 {
		clear(scalesH[:2])
		d := -maxScale / 32
		putF16(dh, d)
		var id float32
		if d != 0 {
			id = 1 / d
		}
		var sh uint16
		for ib := 0; ib < nb; ib++ {
			l := max(-32, min(31, nearestInt(float32(id*scales[ib]))))
			dl := d * float32(l)
			var idl float32
			if dl != 0 {
				idl = 1 / dl
			}
			for j, v := range x[32*ib : 32*ib+32] {
				L[32*ib+j] = bestIndexInt8(values, float32(idl*v))
			}
			l += 32
			if ib%2 == 0 {
				scalesL[ib/2] = byte(l) & 0xF
			} else {
				scalesL[ib/2] |= (byte(l) & 0xF) << 4
			}
			sh |= uint16(l>>4) << (2 * (ib % 8))
		}
		scalesH[0], scalesH[1] = byte(sh), byte(sh>>8)
	} else {
		putF16(dh, scales[0])
		var id float32
		if scales[0] != 0 {
			id = 1 / scales[0]
		}
		for j, v := range x {
			L[j] = bestIndexInt8(values, float32(id*v))
		}
	}
	for i := 0; i < nb; i++ {
		for j := 0; j < 16; j++ {
			q4[16*i+j] = L[32*i+j] | L[32*i+16+j]<<4
		}
	}
}

func quantIQ4_NL(src []float32, dst []byte) {
	for i := 0; i < len(src)/QK; i++ {
		b := dst[i*sizeIQ4_NL : (i+1)*sizeIQ4_NL]
		quantIQ4(src[i*QK:(i+1)*QK], b[0:2], b[2:], nil, nil)
	}
}

func quantIQ4_XS(src []float32, dst []byte) {
	for i := 0; i < len(src)/QKK; i++ {
		b := dst[i*sizeIQ4_XS : (i+1)*sizeIQ4_XS]
		quantIQ4(src[i*QKK:(i+1)*QKK], b[0:2], b[offIQ4XSQs:], b[offIQ4XSScalesH:offIQ4XSScalesL], b[offIQ4XSScalesL:offIQ4XSQs])
	}
}

// bestIndexMXFP4 returns the code whose value under the scale e is nearest
// to x (the first on ties), as ggml's best_index_mxfp4.
func bestIndexMXFP4(x, e float32) uint8 {
	best, bestErr := 0, abs32(float32(float32(kvaluesMXFP4[0])*e)-x)
	for i := 1; i < 16; i++ {
		if err := abs32(float32(float32(kvaluesMXFP4[i])*e) - x); err < bestErr {
			best, bestErr = i, err
		}
	}
	return uint8(best)
}

func quantMXFP4(src []float32, dst []byte) {
	for i := 0; i < len(src)/QK; i++ {
		x := (*[QK]float32)(src[i*QK:])
		b := (*[sizeMXFP4]byte)(dst[i*sizeMXFP4:])
		var amax float32
		for _, v := range x {
			amax = max(amax, abs32(v))
		}
		var e byte
		if amax > 0 {
			// log2f rounds to float32 before the floor, as C does.
			e = byte(int(math.Floor(float64(float32(math.Log2(float64(amax)))))) - 2 + 127)
		}
		b[0] = e
		d := e8m0Half(e)
		for j := 0; j < QK/2; j++ {
			b[1+j] = bestIndexMXFP4(x[j], d) | bestIndexMXFP4(x[j+QK/2], d)<<4
		}
	}
}
