package server

import (
	"context"
	"errors"
	"sync"

	"github.com/litert-go/litert-go/conversation"
	"github.com/litert-go/litert-go/session"
)

// promptCache is a pool of conversations, each keeping the KV state of the
// last request it served: the prompt cache. A request takes the idle
// conversation whose tokens share the longest prefix with its prompt, so a
// follow-up turn, or any request repeating an earlier one's start,
// prefills only what is new. The pool holds at most max conversations (each
// a full KV cache); when it is full the least recently used idle one is
// reused.
type promptCache struct {
	newConv func(context.Context) (*conversation.Conversation, error)
	max     int

	mu    sync.Mutex
	idle  []*conversation.Conversation // least recently used first
	total int                          // idle and in use
}

func newPromptCache(max int, newConv func(context.Context) (*conversation.Conversation, error)) *promptCache {
	return &promptCache{newConv: newConv, max: max}
}

// get returns a conversation for a request whose prompt is prompt; the
// caller gives it back with put (or drop).
func (p *promptCache) get(ctx context.Context, prompt session.Prompt) (*conversation.Conversation, error) {
	p.mu.Lock()
	best, bestLen := -1, 0
	for i, c := range p.idle {
		if n := c.CommonPrefix(prompt); n > 0 && n >= bestLen { // ties: the most recent
			best, bestLen = i, n
		}
	}
	// Reuse a conversation that shares at least half its tokens with the
	// request. One sharing less (a system prompt, say) is worth more kept
	// for its own follow-ups: start a new conversation while there is
	// room, else overwrite the least recently used.
	if best >= 0 && 2*bestLen >= p.idle[best].TokenCount() {
		c := p.idle[best]
		p.idle = append(p.idle[:best], p.idle[best+1:]...)
		p.mu.Unlock()
		return c, nil
	}
	if p.total < p.max {
		p.total++
		p.mu.Unlock()
		c, err := p.newConv(ctx)
		if err != nil {
			p.mu.Lock()
			p.total--
			p.mu.Unlock()
			return nil, err
		}
		return c, nil
	}
	defer p.mu.Unlock()
	if len(p.idle) == 0 {
		return nil, errors.New("server: no conversation is free (more requests running than the cache holds)")
	}
	c := p.idle[0]
	p.idle = p.idle[1:]
	return c, nil
}

// put returns a conversation to the pool as the most recently used.
func (p *promptCache) put(c *conversation.Conversation) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.idle = append(p.idle, c)
}

// drop forgets a conversation whose state is not trusted any more.
func (p *promptCache) drop(*conversation.Conversation) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total--
}

// size reports the conversations held and how many are idle.
func (p *promptCache) size() (total, idle int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.total, len(p.idle)
}
