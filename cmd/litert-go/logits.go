package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/litert-go/litert-go/conversation"
	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/session"
)

// runLogits writes the model's full logits as JSON lines, in the format of
// the reference fixtures (testdata/models/*.logits.jsonl): a header
// {"prompt_tokens": [...], "n_vocab": V}, then {"step": i, "argmax": id,
// "logits": [...]} per step. Step 0 follows the prompt prefilled as one
// batch; step k follows feeding the argmax of step k-1, or with --feed the
// k-th listed token.
func runLogits(ctx context.Context, sio stdio, args []string) error {
	fs := newFlags("logits", sio)
	eo := addEngineFlags(fs)
	eo.addMMProjFlag(fs)
	idsFlag := fs.String("ids", "", "prompt as comma-separated token ids")
	prompt := fs.String("p", "", "prompt text (tokenized with the model's tokenizer, BOS added as the model asks)")
	steps := fs.Int("n", 1, "number of steps to print")
	feedFlag := fs.String("feed", "", "comma-separated tokens to feed before steps 1, 2, … instead of each previous argmax")
	var media mediaFlags
	fs.Var(media.of("image"), "image", "image `FILE` for the next "+mediaMarker+" in -p (prepended if -p has none; may be repeated; needs --mmproj)")
	fs.Var(media.of("audio"), "audio", "audio `FILE` for the next "+mediaMarker+" in -p, as --image")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if (*idsFlag == "") == (*prompt == "") {
		return errors.New("give the prompt as exactly one of --ids or -p")
	}
	if len(media.parts) > 0 && *prompt == "" {
		return errors.New("--image and --audio need the prompt as -p")
	}
	if *steps < 1 {
		return fmt.Errorf("-n %d: need at least one step", *steps)
	}
	var feed []int32
	if *feedFlag != "" {
		var err error
		if feed, err = parseIDs(*feedFlag); err != nil {
			return fmt.Errorf("--feed: %w", err)
		}
		if len(feed) < *steps-1 {
			return fmt.Errorf("--feed lists %d tokens; -n %d needs %d", len(feed), *steps, *steps-1)
		}
	}
	eng, err := eo.open(ctx)
	if err != nil {
		return err
	}
	defer eng.Close()
	var p session.Prompt
	switch {
	case *idsFlag != "":
		ids, err := parseIDs(*idsFlag)
		if err != nil {
			return fmt.Errorf("--ids: %w", err)
		}
		p = session.TokenPrompt(ids)
	case len(media.parts) > 0:
		if p, err = mediaPrompt(ctx, eng, *prompt, media.parts); err != nil {
			return err
		}
	default:
		ids, err := encodePrompt(eng, *prompt)
		if err != nil {
			return err
		}
		p = session.TokenPrompt(ids)
	}
	if p.Len() == 0 {
		return errors.New("the prompt has no tokens")
	}
	s, err := session.New(eng, session.Config{BatchSize: p.Len()})
	if err != nil {
		return err
	}
	w := bufio.NewWriter(sio.out)
	fmt.Fprintf(w, `{"prompt_tokens":%s,"n_vocab":%d}`+"\n", formatIDs(p.Tokens()), eng.Info().VocabSize)
	if err := s.PrefillPrompt(ctx, p); err != nil {
		return err
	}
	for step := range *steps {
		if step > 0 {
			next := argmax(s.Logits())
			if feed != nil {
				next = feed[step-1]
			}
			if err := s.Decode(ctx, next); err != nil {
				return err
			}
		}
		writeStep(w, step, s.Logits())
	}
	return w.Flush()
}

// mediaMarker stands for a media file in a raw prompt: llama.cpp's
// mtmd_default_marker().
const mediaMarker = "<__media__>"

// mediaPrompt is the prompt of raw text and media, each media for the next
// mediaMarker in text; a text without markers gets one per media in front,
// as llama.cpp's mtmd-cli puts them.
func mediaPrompt(ctx context.Context, eng *engine.Engine, text string, media []conversation.Part) (session.Prompt, error) {
	if !strings.Contains(text, mediaMarker) {
		text = strings.Repeat(mediaMarker, len(media)) + text
	}
	p, err := conversation.NewPrompter(eng, conversation.Config{})
	if err != nil {
		return nil, err
	}
	return p.TextWithMedia(ctx, text, mediaMarker, media)
}

func writeStep(w *bufio.Writer, step int, logits []float32) {
	fmt.Fprintf(w, `{"step":%d,"argmax":%d,"logits":[`, step, argmax(logits))
	var buf []byte
	for i, v := range logits {
		buf = buf[:0]
		if i > 0 {
			buf = append(buf, ',')
		}
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			buf = append(buf, "null"...)
		} else {
			buf = strconv.AppendFloat(buf, float64(v), 'g', -1, 32)
		}
		w.Write(buf)
	}
	w.WriteString("]}\n")
}

func argmax(x []float32) int32 {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return int32(best)
}

// parseIDs parses comma-separated token ids.
func parseIDs(s string) ([]int32, error) {
	var ids []int32
	for i, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		v, err := strconv.ParseInt(f, 10, 32)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("item %d: %q is not a token id", i+1, f)
		}
		ids = append(ids, int32(v))
	}
	return ids, nil
}

func formatIDs(ids []int32) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(id)))
	}
	b.WriteByte(']')
	return b.String()
}
