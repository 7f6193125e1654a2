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

	"github.com/redial-go/redial/redialtest"
)

// HTTPServer is a net/http server on 127.0.0.1, a redialtest.Refuser,
// ConnCloser and Echoer, for the harnesses of the HTTP-based adapters; the
// protocol's handler (Handle) serves what it does not refuse. It refuses
// with 503 (retried) or ForGood (given up on, even with a BeforeConnect),
// and each refusal's status line, Content-Type and body echo the request.
type HTTPServer struct {
	Echo HTTPEcho
	// ForGood is the status of the refusal for good; 0 means 404.
	ForGood int
	// Handle serves a request the server does not refuse. It must return
	// when the connection breaks, and end the stream the protocol's way
	// when closing is closed.
	Handle func(w http.ResponseWriter, r *http.Request, closing <-chan struct{})

	addr  string
	modes // refusal: the status code
	srv   *http.Server
	conns sync.Map // every connection, hijacked ones included
}

// StartHTTP starts s serving, until the test ends.
func StartHTTP(t testing.TB, s *HTTPServer) *HTTPServer {
	t.Helper()
	s.modes.init()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("conformance: listen: %v", err)
	}
	s.addr = ln.Addr().String()
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serveHTTP), ConnState: s.track}
	var served sync.WaitGroup
	served.Go(func() { _ = s.srv.Serve(ln) })
	t.Cleanup(func() {
		_ = s.srv.Close()
		s.conns.Range(func(c, _ any) bool { _ = c.(net.Conn).Close(); return true })
		served.Wait()
	})
	return s
}

// Addr is the server's address.
func (s *HTTPServer) Addr() string { return s.addr }

func (s *HTTPServer) track(c net.Conn, st http.ConnState) {
	switch st {
	case http.StateNew:
		s.conns.Store(c, nil)
	case http.StateClosed:
		s.conns.Delete(c)
	}
}

func (s *HTTPServer) serveHTTP(w http.ResponseWriter, r *http.Request) {
	refusal, closing := s.now()
	if refusal != 0 {
		s.Echo.Refuse(w, r, refusal)
		return
	}
	s.Handle(w, r, closing)
}

// Refuse refuses new requests with 503, or ForGood when permanent, until
// Serve.
func (s *HTTPServer) Refuse(permanent bool) {
	if permanent {
		s.refuse(cmp.Or(s.ForGood, http.StatusNotFound))
		return
	}
	s.refuse(http.StatusServiceUnavailable)
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
		r.URL.RequestURI(), r.Header.Get("Authorization"), r.Header.Get("Cookie"), r.Header.Get(redialtest.TokenHeader), e.firstToken(r))
}

// Short returns an echo of r that fits a WebSocket close reason (123
// bytes): the Authorization, the secret parts of the cookie and the
// query, the token and the first token.
func (e *HTTPEcho) Short(r *http.Request) string {
	text := fmt.Sprintf("a=%s c=%s q=%s t=%s f=%s", strings.TrimPrefix(r.Header.Get("Authorization"), "Basic "),
		part(r.Header.Get("Cookie"), "; ", redialtest.QueryKey), part(r.URL.RawQuery, "&", redialtest.QueryKey), r.Header.Get(redialtest.TokenHeader), e.firstToken(r))
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
		e.first = r.Header.Get(redialtest.TokenHeader)
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
	contentType := fmt.Sprintf("text/plain; %s; t=%s", part(r.Header.Get("Cookie"), "; ", redialtest.QueryKey), e.firstToken(r))
	e.Sent(contentType)
	fmt.Fprintf(rw, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		code, text, contentType, len(text), text)
	_ = rw.Flush()
}

// Target returns the url and header an HTTP-based adapter's client
// toward addr is given: with o.Secrets, in its userinfo, query and Cookie.
func Target(addr string, o redialtest.Options, scheme, path string) (string, http.Header) {
	if o.Secrets == nil {
		return scheme + "://" + addr + path, nil
	}
	return o.Secrets.URL(scheme, addr, path), o.Secrets.Header()
}

// BeforeConnect is an HTTP-based adapter's BeforeConnect that calls f and
// sets redialtest.TokenHeader to the credential it returns; nil when f is.
func BeforeConnect(f func(context.Context) (string, error)) func(context.Context, *url.URL, http.Header) error {
	if f == nil {
		return nil
	}
	return func(ctx context.Context, _ *url.URL, h http.Header) error {
		tok, err := f(ctx)
		if err != nil {
			return err
		}
		h.Set(redialtest.TokenHeader, tok)
		return nil
	}
}
