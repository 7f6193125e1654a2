package sse

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/redial-go/redial/internal/httpcore"
)

// errClosed is the cause of a leg's context once it was closed.
var errClosed = errors.New("stream closed")

// stream is the Client's connection, which only the Client reads: the
// streaming GETs of one attempt. A program may hand the one the
// supervisor's Conn gives to Invalidate, to replace it.
type stream struct {
	attempt *httpcore.Attempt // what every request of the stream sends

	mu     sync.Mutex
	leg    *leg // the request being read; nil while paused
	closed bool

	// Watch's goroutine only: the last id the stream gave (the resumed
	// one before any) and the events it gave, the place of a poison event.
	lastSeen string
	read     int
}

// leg is one streaming GET of a stream: one to begin with, and one more
// each time the stream resumes after a pause.
type leg struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	tr     *httpcore.Transport // the leg's own: closed with it, nothing pooled
	resp   *http.Response      // nil until the server answered
	idle   *time.Timer         // fires after IdleTimeout of silence
	wait   time.Duration       // IdleTimeout

	// Watch's goroutine only.
	readAt time.Time // the last body read that brought data
	skip   bool      // the first block go-sse dispatches is the resumed id's (see open): not an event
	over   bool      // paused: what go-sse still parses is dropped
	retry  retryScan // the `retry:` fields the body brought
}

func newLeg(c *httpcore.Core) *leg {
	ctx, cancel := context.WithCancelCause(context.Background())
	g := &leg{ctx: ctx, cancel: cancel, wait: c.IdleTimeout}
	g.tr = c.NewTransport(ctx)
	return g
}

// open makes resp the leg's and starts the idle timer, which every body
// read that brings data rearms. The body starts with an id field that
// sets go-sse's last event id to resumed, so that an empty id field the
// server sends resets it, as EventSource's does, instead of looking like
// no id at all.
func (g *leg) open(resp *http.Response, f *feed, resumed string) {
	g.idle = time.AfterFunc(g.wait, func() { g.cancel(ErrIdleTimeout) })
	b := &legBody{ReadCloser: resp.Body, g: g, f: f}
	if resumed != "" {
		b.prefix, b.bom, g.skip = "id: "+resumed+"\n\n", true, true
	}
	resp.Body = b
	g.resp = resp
}

// close ends the leg: its context, its body, its transport and the dials
// in progress, which it waits for.
func (g *leg) close() {
	if g.idle != nil {
		g.idle.Stop()
	}
	g.cancel(errClosed)
	if g.resp != nil {
		_ = g.resp.Body.Close()
	}
	g.tr.End()
}

// current returns the leg being read, nil when there is none.
func (s *stream) current() *leg {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.leg
}

// setLeg makes g the leg being read (nil: none) and closes the one before;
// after close, g is closed instead.
func (s *stream) setLeg(g *leg) {
	s.mu.Lock()
	old := s.leg
	if s.closed {
		old, g = g, nil
	}
	s.leg = g
	s.mu.Unlock()
	if old != nil {
		old.close()
	}
}

// close closes the leg being read; no leg is read after.
func (s *stream) close() {
	s.mu.Lock()
	old := s.leg
	s.leg, s.closed = nil, true
	s.mu.Unlock()
	if old != nil {
		old.close()
	}
}

// legBody is a leg's response body: it serves the resumed id first, and
// its reads wake the program's loop for what the last one brought and
// rearm the idle timer.
type legBody struct {
	io.ReadCloser
	g      *leg
	f      *feed
	prefix string
	bom    bool // the body's own first bytes are still to come: a BOM there is dropped, as go-sse does at a stream's start
}

const bom = "\xef\xbb\xbf"

func (b *legBody) Read(p []byte) (int, error) {
	b.f.flush()
	if b.prefix != "" {
		n := copy(p, b.prefix)
		b.prefix = b.prefix[n:]
		return n, nil
	}
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		if b.bom {
			b.bom = false
			if n >= len(bom) && string(p[:len(bom)]) == bom {
				n = copy(p, p[len(bom):n])
			}
		}
		b.g.idle.Reset(b.g.wait)
		b.g.readAt = time.Now()
		b.g.retry.scan(p[:n])
	}
	return n, err
}
