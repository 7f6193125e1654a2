package sse

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/redial-go/redial/internal/httpcore"
)

// errClosed is the cause of a stream's context once Close or Watch's end
// has ended it.
var errClosed = errors.New("stream closed")

// Stream is one streaming GET: the Client's connection, which only the
// Client reads. A program may hand the one the supervisor's Conn gives to
// Invalidate, to replace it.
type Stream struct {
	ctx     context.Context
	cancel  context.CancelCauseFunc
	tr      *httpcore.Transport // this stream's own: closed with it, nothing pooled
	resp    *http.Response      // nil until the server answered
	gen     uint64              // the feed's generation this stream delivers to
	resumed string              // the Last-Event-ID the request sent

	idle        *time.Timer // fires after IdleTimeout of silence; stopped while an event waits for the program
	idleTimeout time.Duration

	// lastSeen is the newest non-empty id the stream gave, or resumed:
	// the ID of an event that has none of its own; read counts the events
	// it gave; readAt is when the body last brought data (UnixNano). Watch's
	// goroutine only.
	lastSeen string
	read     int
	readAt   int64
}

// newStream returns a stream whose request and dials end with its ctx.
func newStream(c *httpcore.Core, gen uint64, resumed string) *Stream {
	ctx, cancel := context.WithCancelCause(context.Background())
	s := &Stream{ctx: ctx, cancel: cancel, gen: gen, resumed: resumed, lastSeen: resumed, idleTimeout: c.IdleTimeout}
	s.tr = c.NewTransport(ctx)
	return s
}

// open makes resp the stream's and starts the idle timer: every read that
// brings data rearms it.
func (s *Stream) open(resp *http.Response) {
	s.idle = time.AfterFunc(s.idleTimeout, func() { s.cancel(ErrIdleTimeout) })
	resp.Body = &idleBody{ReadCloser: resp.Body, s: s}
	s.resp = resp
}

// close ends everything of the stream: its context, its body, its
// transport and the dials in progress, which it waits for.
func (s *Stream) close() {
	if s.idle != nil {
		s.idle.Stop()
	}
	s.cancel(errClosed)
	if s.resp != nil {
		_ = s.resp.Body.Close()
	}
	s.tr.End()
}

// idleBody is a response body whose reads rearm its stream's idle timer.
type idleBody struct {
	io.ReadCloser
	s *Stream
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.s.idle.Reset(b.s.idleTimeout)
		b.s.readAt = time.Now().UnixNano()
	}
	return n, err
}
