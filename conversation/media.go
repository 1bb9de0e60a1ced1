package conversation

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	_ "image/gif" // register GIF for DecodeConfig
	_ "image/jpeg"
	_ "image/png"
	"os"
)

// Limits on multimodal inputs.
const (
	MaxMediaBytes  = 32 << 20 // largest image or audio file accepted
	MaxImagePixels = 64 << 20 // largest width×height accepted
)

// Media is a checked image or audio input, ready for a model's encoder.
type Media struct {
	Kind   string // "image" or "audio"
	Format string // "png", "jpeg", "gif", "webp"; "wav", "mp3" or "flac"
	Width  int    // images
	Height int
	// Audio: WAV and FLAC headers give all four; an MP3's first frame
	// gives SampleRate and Channels.
	SampleRate int
	Channels   int
	Bits       int
	Samples    int // frames
	Data       []byte
}

// LoadMedia reads a part's path or blob and checks it: known format,
// readable header, size limits. Text parts are an error.
func LoadMedia(p Part) (Media, error) {
	if p.Type != "image" && p.Type != "audio" {
		return Media{}, fmt.Errorf("part of type %q is not media", p.Type)
	}
	data := p.Blob
	src := "inline " + p.Type
	if p.Path != "" {
		src = p.Path
		st, err := os.Stat(p.Path)
		if err != nil {
			return Media{}, fmt.Errorf("%s part: %w", p.Type, err)
		}
		if st.Size() > MaxMediaBytes {
			return Media{}, fmt.Errorf("%s: %d bytes is over the %d-byte limit", p.Path, st.Size(), MaxMediaBytes)
		}
		if data, err = os.ReadFile(p.Path); err != nil {
			return Media{}, fmt.Errorf("%s part: %w", p.Type, err)
		}
	}
	if len(data) == 0 {
		return Media{}, fmt.Errorf("%s: empty %s", src, p.Type)
	}
	if len(data) > MaxMediaBytes {
		return Media{}, fmt.Errorf("%s: %d bytes is over the %d-byte limit", src, len(data), MaxMediaBytes)
	}
	var m Media
	var err error
	switch {
	case p.Type == "image":
		m, err = checkImage(data)
	case AudioFormat(data) == "mp3":
		m, err = checkMP3(data)
	case AudioFormat(data) == "flac":
		m, err = checkFLAC(data)
	default:
		m, err = checkWAV(data)
	}
	if err != nil {
		return Media{}, fmt.Errorf("%s: %w", src, err)
	}
	m.Data = data
	return m, nil
}

func checkImage(data []byte) (Media, error) {
	m := Media{Kind: "image"}
	if len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP" {
		w, h, err := webpSize(data)
		if err != nil {
			return Media{}, err
		}
		m.Format, m.Width, m.Height = "webp", w, h
	} else {
		cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			return Media{}, fmt.Errorf("not a readable PNG, JPEG, GIF or WebP image: %w", err)
		}
		m.Format, m.Width, m.Height = format, cfg.Width, cfg.Height
	}
	if m.Width <= 0 || m.Height <= 0 || m.Width*m.Height > MaxImagePixels {
		return Media{}, fmt.Errorf("image of %d×%d pixels is empty or over the %d-pixel limit", m.Width, m.Height, MaxImagePixels)
	}
	return m, nil
}

// webpSize reads the canvas size from a WebP file's first chunk (VP8, VP8L
// or VP8X), per the WebP container specification.
func webpSize(d []byte) (int, int, error) {
	if len(d) < 30 {
		return 0, 0, fmt.Errorf("WebP file truncated")
	}
	switch string(d[12:16]) {
	case "VP8 ":
		if d[23] != 0x9d || d[24] != 0x01 || d[25] != 0x2a {
			return 0, 0, fmt.Errorf("WebP VP8 frame has a bad start code")
		}
		return int(binary.LittleEndian.Uint16(d[26:]) & 0x3fff), int(binary.LittleEndian.Uint16(d[28:]) & 0x3fff), nil
	case "VP8L":
		if d[20] != 0x2f {
			return 0, 0, fmt.Errorf("WebP VP8L has a bad signature")
		}
		b := binary.LittleEndian.Uint32(d[21:])
		return int(b&0x3fff) + 1, int(b>>14&0x3fff) + 1, nil
	case "VP8X":
		w := int(d[24]) | int(d[25])<<8 | int(d[26])<<16
		h := int(d[27]) | int(d[28])<<8 | int(d[29])<<16
		return w + 1, h + 1, nil
	}
	return 0, 0, fmt.Errorf("WebP file has unknown chunk %q", d[12:16])
}

// AudioFormat names the audio format data starts with: "wav", "mp3" or
// "flac", or "" for none of them.
func AudioFormat(data []byte) string {
	switch {
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WAVE":
		return "wav"
	case len(data) >= 4 && string(data[:4]) == "fLaC":
		return "flac"
	case len(data) >= 3 && string(data[:3]) == "ID3",
		len(data) >= 4 && mp3Frame(data) != (mp3Header{}):
		return "mp3"
	}
	return ""
}

// mp3Header is what an MPEG audio frame header says.
type mp3Header struct{ rate, channels int }

// mp3Frame reads the MPEG-1/2/2.5 Layer III frame header at the start of
// d (ISO/IEC 11172-3 §2.4.1.3); the zero value when there is none.
func mp3Frame(d []byte) mp3Header {
	if len(d) < 4 || d[0] != 0xff || d[1]&0xe0 != 0xe0 {
		return mp3Header{}
	}
	version, layer := d[1]>>3&3, d[1]>>1&3
	bitrate, rateIdx := d[2]>>4, d[2]>>2&3
	if version == 1 || layer != 1 || bitrate == 0 || bitrate == 15 || rateIdx == 3 {
		return mp3Header{} // reserved version, not Layer III, free or bad bitrate, reserved rate
	}
	rate := [3]int{44100, 48000, 32000}[rateIdx]
	switch version {
	case 2: // MPEG-2
		rate /= 2
	case 0: // MPEG-2.5
		rate /= 4
	}
	channels := 2
	if d[3]>>6 == 3 {
		channels = 1
	}
	return mp3Header{rate: rate, channels: channels}
}

// checkMP3 finds the first frame header, after an ID3v2 tag if there is one.
func checkMP3(d []byte) (Media, error) {
	pos := 0
	if len(d) >= 10 && string(d[:3]) == "ID3" {
		// The tag's size is four 7-bit bytes, after a 10-byte header (and a
		// 10-byte footer when flag bit 4 is set).
		size := int(d[6]&0x7f)<<21 | int(d[7]&0x7f)<<14 | int(d[8]&0x7f)<<7 | int(d[9]&0x7f)
		pos = 10 + size
		if d[5]&0x10 != 0 {
			pos += 10
		}
	}
	if pos >= len(d) {
		return Media{}, fmt.Errorf("MP3 file ends inside its ID3 tag")
	}
	h := mp3Frame(d[pos:])
	if h == (mp3Header{}) {
		return Media{}, fmt.Errorf("no MPEG Layer III frame header at byte %d of the MP3 file", pos)
	}
	return Media{Kind: "audio", Format: "mp3", SampleRate: h.rate, Channels: h.channels}, nil
}

// checkFLAC reads the STREAMINFO block that must come first in a FLAC file
// (RFC 9639 §8.2).
func checkFLAC(d []byte) (Media, error) {
	if len(d) < 8+34 || d[4]&0x7f != 0 {
		return Media{}, fmt.Errorf("FLAC file has no STREAMINFO block")
	}
	si := d[8:]
	rate := int(si[10])<<12 | int(si[11])<<4 | int(si[12])>>4
	channels := int(si[12]>>1&7) + 1
	bits := int(si[12]&1)<<4 | int(si[13])>>4 + 1
	samples := int(si[13]&0xf)<<32 | int(binary.BigEndian.Uint32(si[14:]))
	if rate == 0 {
		return Media{}, fmt.Errorf("FLAC STREAMINFO has sample rate 0")
	}
	return Media{Kind: "audio", Format: "flac", SampleRate: rate, Channels: channels, Bits: bits, Samples: samples}, nil
}

// checkWAV reads a RIFF WAVE header with PCM data.
func checkWAV(d []byte) (Media, error) {
	if len(d) < 12 || string(d[:4]) != "RIFF" || string(d[8:12]) != "WAVE" {
		return Media{}, fmt.Errorf("not a WAV, MP3 or FLAC file")
	}
	m := Media{Kind: "audio", Format: "wav"}
	var haveFmt bool
	for pos := 12; pos+8 <= len(d); {
		id, size := string(d[pos:pos+4]), int(binary.LittleEndian.Uint32(d[pos+4:]))
		body := pos + 8
		if size < 0 || body+size > len(d) {
			if id == "data" { // streaming writers leave the size unset
				size = len(d) - body
			} else {
				return Media{}, fmt.Errorf("WAV chunk %q runs past the end of the file", id)
			}
		}
		switch id {
		case "fmt ":
			if size < 16 {
				return Media{}, fmt.Errorf("WAV fmt chunk of %d bytes is too short", size)
			}
			if tag := binary.LittleEndian.Uint16(d[body:]); tag != 1 && tag != 3 && tag != 0xFFFE {
				return Media{}, fmt.Errorf("WAV encoding %d is not PCM", tag)
			}
			m.Channels = int(binary.LittleEndian.Uint16(d[body+2:]))
			m.SampleRate = int(binary.LittleEndian.Uint32(d[body+4:]))
			m.Bits = int(binary.LittleEndian.Uint16(d[body+14:]))
			haveFmt = true
		case "data":
			if !haveFmt {
				return Media{}, fmt.Errorf("WAV data chunk before the fmt chunk")
			}
			if m.Channels == 0 || m.Bits == 0 || m.SampleRate == 0 {
				return Media{}, fmt.Errorf("WAV header has zero channels, bits or sample rate")
			}
			m.Samples = size / (m.Channels * ((m.Bits + 7) / 8))
			return m, nil
		}
		pos = body + size + size&1
	}
	return Media{}, fmt.Errorf("WAV file has no data chunk")
}
