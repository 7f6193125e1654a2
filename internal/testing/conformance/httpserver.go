package conformance

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// HTTPServer is a net/http server on 127.0.0.1 with the behaviours of a
// Server, for the harnesses of the HTTP-based adapters; the protocol's
// handler (Handle) serves what it does not refuse. It refuses with 503
// (retried) or ForGood (given up on, even with a BeforeConnect), and each
// refusal's status line, Content-Type and body echo the request.
type HTTPServer struct {
	Addr string
	Echo HTTPEcho
	// ForGood is the status of the refusal for good; 0 means 404.
	ForGood int
	// Handle serves a request the server does not refuse. It must return
	// when the connection breaks, and end the stream the protocol's way
	// when closing is closed; while stalled is closed it answers nothing.
	Handle func(w http.ResponseWriter, r *http.Request, closing, stalled <-chan struct{})

	t        testing.TB
	modes    // refusal: the status code
	mu       sync.Mutex
	srv      *http.Server // nil while killed
	conns    map[net.Conn]struct{}
	handlers sync.WaitGroup
}

// StartHTTP starts s serving, until the test ends.
func StartHTTP(t testing.TB, s *HTTPServer) *HTTPServer {
	t.Helper()
	s.t, s.Addr = t, "127.0.0.1:0"
	s.modes.init()
	s.listen()
	t.Cleanup(s.Kill)
	return s
}

func (s *HTTPServer) listen() {
	s.t.Helper()
	ln, err := net.Listen("tcp", s.Addr)
	if err != nil {
		s.t.Fatalf("conformance: listen: %v", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(s.serveHTTP), ConnState: s.track}
	s.mu.Lock()
	s.Addr, s.srv, s.conns = ln.Addr().String(), srv, map[net.Conn]struct{}{}
	s.mu.Unlock()
	s.handlers.Go(func() { _ = srv.Serve(ln) })
}

// track keeps every connection, hijacked ones included, for Kill.
func (s *HTTPServer) track(c net.Conn, st http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch st {
	case http.StateNew:
		s.conns[c] = struct{}{}
	case http.StateClosed:
		delete(s.conns, c)
	}
}

func (s *HTTPServer) serveHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.srv == nil { // killed: Kill waits for the handlers
		s.mu.Unlock()
		return
	}
	s.handlers.Add(1)
	s.mu.Unlock()
	refusal, closing, stalled := s.now()
	defer s.handlers.Done()
	if refusal != 0 {
		s.Echo.Refuse(w, r, refusal)
		return
	}
	s.Handle(w, r, closing, stalled)
}

// Serve serves again: no refusal, no stall, listening.
func (s *HTTPServer) Serve() {
	s.serve()
	s.mu.Lock()
	killed := s.srv == nil
	s.mu.Unlock()
	if killed {
		s.listen()
	}
}

// Refuse refuses new requests with 503, or ForGood when permanent.
func (s *HTTPServer) Refuse(permanent bool) {
	if permanent {
		s.refuse(cmp.Or(s.ForGood, http.StatusNotFound))
		return
	}
	s.refuse(http.StatusServiceUnavailable)
}

// Close makes the live streams end the protocol's way; later ones are
// served.
func (s *HTTPServer) Close() { s.close() }

// Stall makes the live streams answer nothing until Serve.
func (s *HTTPServer) Stall() { s.stall() }

// Kill closes the listener and every connection, as a killed process, and
// waits for the handlers.
func (s *HTTPServer) Kill() {
	s.mu.Lock()
	srv, conns := s.srv, s.conns
	s.srv, s.conns = nil, map[net.Conn]struct{}{}
	s.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
	for c := range conns {
		_ = c.Close()
	}
	s.handlers.Wait()
}

// Echoed returns every text the server sent that echoes a request.
func (s *HTTPServer) Echoed() []string { return s.Echo.Echoed() }

// HTTPEcho is what a careless HTTP server sends back of a request: its
// url and its credentials, and the first BeforeConnect credential it saw.
// It remembers what it sent.
type HTTPEcho struct {
	mu    sync.Mutex
	first string // the first TokenHeader seen
	sent  []string
}

// Of returns the long echo of r, for a status line or a body.
func (e *HTTPEcho) Of(r *http.Request) string {
	return fmt.Sprintf("no route for %s auth %q cookie %q token %q, after token %q",
		r.URL.RequestURI(), r.Header.Get("Authorization"), r.Header.Get("Cookie"), r.Header.Get(TokenHeader), e.firstToken(r))
}

// Short returns an echo of r that fits a WebSocket close reason (123
// bytes): the Authorization, the secret parts of the cookie and the
// query, the token and the first token.
func (e *HTTPEcho) Short(r *http.Request) string {
	text := fmt.Sprintf("a=%s c=%s q=%s t=%s f=%s", strings.TrimPrefix(r.Header.Get("Authorization"), "Basic "),
		part(r.Header.Get("Cookie"), "; ", QueryKey), part(r.URL.RawQuery, "&", QueryKey), r.Header.Get(TokenHeader), e.firstToken(r))
	return text[:min(len(text), 123)]
}

// part returns the name=value part of a list that is named name.
func part(list, sep, name string) string {
	for p := range strings.SplitSeq(list, sep) {
		if strings.HasPrefix(p, name+"=") {
			return p
		}
	}
	return ""
}

func (e *HTTPEcho) firstToken(r *http.Request) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.first == "" {
		e.first = r.Header.Get(TokenHeader)
	}
	return e.first
}

// Sent records a text the server sent.
func (e *HTTPEcho) Sent(text string) {
	e.mu.Lock()
	e.sent = append(e.sent, text)
	e.mu.Unlock()
}

// Echoed returns every text recorded by Sent.
func (e *HTTPEcho) Echoed() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.sent...)
}

// Refuse answers r with code, its status line, Content-Type and body
// echoing r, written raw: net/http would not let a handler choose the
// reason phrase.
func (e *HTTPEcho) Refuse(w http.ResponseWriter, r *http.Request, code int) {
	text := e.Of(r)
	e.Sent(text)
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	contentType := fmt.Sprintf("text/plain; %s; t=%s", part(r.Header.Get("Cookie"), "; ", QueryKey), e.firstToken(r))
	e.Sent(contentType)
	fmt.Fprintf(rw, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		code, text, contentType, len(text), text)
	_ = rw.Flush()
}

// Target returns the url and header an HTTP-based adapter's client of srv
// is given: with o.Secrets, in its userinfo, query and Cookie.
func Target(o Options, srv Server, scheme, path string) (string, http.Header) {
	addr := srv.(*HTTPServer).Addr
	if o.Secrets == nil {
		return scheme + "://" + addr + path, nil
	}
	return o.Secrets.URL(scheme, addr, path), o.Secrets.Header()
}

// BeforeConnect is an HTTP-based adapter's BeforeConnect that calls f and
// sets TokenHeader to the credential it returns; nil when f is.
func BeforeConnect(f func(context.Context) (string, error)) func(context.Context, *url.URL, http.Header) error {
	if f == nil {
		return nil
	}
	return func(ctx context.Context, _ *url.URL, h http.Header) error {
		tok, err := f(ctx)
		if err != nil {
			return err
		}
		h.Set(TokenHeader, tok)
		return nil
	}
}
