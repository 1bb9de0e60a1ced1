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
	Format string // "png", "jpeg", "gif", "webp" or "wav"
	Width  int    // images
	Height int
	// Audio (WAV PCM).
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
	if p.Type == "image" {
		m, err = checkImage(data)
	} else {
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

// checkWAV reads a RIFF WAVE header with PCM data.
func checkWAV(d []byte) (Media, error) {
	if len(d) < 12 || string(d[:4]) != "RIFF" || string(d[8:12]) != "WAVE" {
		return Media{}, fmt.Errorf("not a WAV file (want RIFF/WAVE)")
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
