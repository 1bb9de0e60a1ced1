package tokenizer

// byteEnc is GPT-2's bytes_to_unicode: the printable code point standing for
// each byte in byte-level BPE vocabularies.
var byteEnc = func() (enc [256]rune) {
	n := 0
	for b := 0; b < 256; b++ {
		if (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			enc[b] = rune(b)
		} else {
			enc[b] = rune(256 + n)
			n++
		}
	}
	return enc
}()

// byteDec maps a code point back to its byte; ok is false for code points
// outside the 256 used.
func byteDec(c rune) (byte, bool) {
	if c < 0x100 {
		if (c >= 0x21 && c <= 0x7E) || (c >= 0xA1 && c <= 0xAC) || (c >= 0xAE && c <= 0xFF) {
			return byte(c), true
		}
		return 0, false
	}
	if c >= 256+68 {
		return 0, false
	}
	return byteDecHigh[c-256], true
}

var byteDecHigh = func() (d [68]byte) {
	for b := 0; b < 256; b++ {
		if c := byteEnc[b]; c >= 256 {
			d[c-256] = byte(b)
		}
	}
	return d
}()
