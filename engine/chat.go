package engine

import (
	"fmt"
	"sync"

	"github.com/litert-go/litert-go/constrain"
	"github.com/litert-go/litert-go/template"
	"github.com/litert-go/litert-go/tokenizer"
)

// lazy holds a value computed once, on first use.
type lazy[T any] struct {
	once sync.Once
	v    T
	err  error
}

func (l *lazy[T]) get(f func() (T, error)) (T, error) {
	l.once.Do(func() { l.v, l.err = f() })
	return l.v, l.err
}

// Tokenizer returns the model's tokenizer.
func (e *Engine) Tokenizer() *tokenizer.Tokenizer { return e.tok }

// ChatTemplate returns the model's chat template, parsed once and shared by
// every conversation; a model without one gets template.DefaultChatML.
func (e *Engine) ChatTemplate() (*template.Template, error) {
	return e.chat.get(func() (*template.Template, error) {
		src := e.info.ChatTemplate
		if src == "" {
			src = template.DefaultChatML
		}
		t, err := template.Parse(src)
		if err != nil {
			return nil, fmt.Errorf("engine: chat template: %w", err)
		}
		return t, nil
	})
}

// ConstraintVocab returns the vocabulary as byte strings for constrained
// decoding, built once and shared. Control tokens are never allowed; the
// end-of-generation tokens end a constrained reply.
func (e *Engine) ConstraintVocab() (*constrain.Vocab, error) {
	return e.vocab.get(func() (*constrain.Vocab, error) {
		n := e.tok.VocabSize()
		toks := make([][]byte, n)
		for i := range toks {
			if !e.tok.IsControl(int32(i)) {
				toks[i] = e.tok.TokenBytes(int32(i))
			}
		}
		v, err := constrain.NewVocab(toks, e.info.EOG)
		if err != nil {
			return nil, fmt.Errorf("engine: constraint vocabulary: %w", err)
		}
		return v, nil
	})
}
