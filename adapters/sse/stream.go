package sse

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/redial-go/redial/internal/redact"
)

// errClosed is the cause of a stream's context once Close or Watch's end
// has ended it.
var errClosed = errors.New("stream closed")

// stream is one streaming GET: the supervisor's connection. Its request,
// the dial under it and every read of its body end with ctx; the idle
// timer ends ctx with ErrIdleTimeout when the body stays silent.
type stream struct {
	ctx     context.Context
	cancel  context.CancelCauseFunc
	tr      *http.Transport // this stream's own: closed with it, nothing pooled
	resp    *http.Response  // nil until the server answered
	secrets redact.Target   // the attempt's redactor: the target's and BeforeConnect's secrets
	gen     uint64          // the feed's generation this stream delivers to
	resumed string          // the Last-Event-ID the request sent

	idle        *time.Timer // fires after IdleTimeout of silence; stopped while an event waits for the program
	idleTimeout time.Duration

	// lastSeen is the newest non-empty id the stream gave, or resumed:
	// the ID of an event that has none of its own. Watch's goroutine only.
	lastSeen string

	mu    sync.Mutex
	over  bool           // no new dial: the attempt or the stream is over
	dials sync.WaitGroup // dials in progress
}

// newStream returns a stream whose requests and dials end with its ctx.
func newStream(tlsConfig *tls.Config, secrets redact.Target, gen uint64, resumed string, idle time.Duration) *stream {
	ctx, cancel := context.WithCancelCause(context.Background())
	s := &stream{ctx: ctx, cancel: cancel, secrets: secrets, gen: gen, resumed: resumed, lastSeen: resumed, idleTimeout: idle}
	s.tr = &http.Transport{
		Proxy:             http.ProxyFromEnvironment,
		TLSClientConfig:   tlsConfig,
		DisableKeepAlives: true,
		DialContext: func(_ context.Context, network, addr string) (net.Conn, error) {
			// The transport may detach a dial from its request; tie this
			// one to the stream so that it ends with it.
			s.mu.Lock()
			if s.over {
				s.mu.Unlock()
				return nil, context.Canceled
			}
			s.dials.Add(1)
			s.mu.Unlock()
			defer s.dials.Done()
			var d net.Dialer
			return d.DialContext(s.ctx, network, addr)
		},
	}
	return s
}

// open makes resp the stream's and starts the idle timer: every read that
// brings data rearms it.
func (s *stream) open(resp *http.Response) {
	s.idle = time.AfterFunc(s.idleTimeout, func() { s.cancel(ErrIdleTimeout) })
	resp.Body = &idleBody{ReadCloser: resp.Body, s: s}
	s.resp = resp
}

// close ends everything of the stream: its context, its body, its
// transport and the dials in progress, which it waits for.
func (s *stream) close() {
	s.mu.Lock()
	s.over = true
	s.mu.Unlock()
	if s.idle != nil {
		s.idle.Stop()
	}
	s.cancel(errClosed)
	if s.resp != nil {
		_ = s.resp.Body.Close()
	}
	s.tr.CloseIdleConnections()
	s.dials.Wait()
}

// idleBody is a response body whose reads rearm its stream's idle timer.
type idleBody struct {
	io.ReadCloser
	s *stream
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.s.idle.Reset(b.s.idleTimeout)
	}
	return n, err
}
