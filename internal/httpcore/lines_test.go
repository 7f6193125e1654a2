package httpcore_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/httpcore"
	"github.com/redial-go/redial/supervisor"
)

// The core's tests run it over "lines", a small library of its own: a GET
// whose 200 text/plain answer is a stream of lines, each a message, and
// "close CODE REASON" a close frame. The server is real (net/http on
// 127.0.0.1); what each test varies is what it answers.

// closeError is a close frame of the lines protocol.
type closeError struct {
	code   int
	reason string
}

func (e *closeError) Error() string { return fmt.Sprintf("closed %d: %s", e.code, e.reason) }

var errTooLong = errors.New("line longer than ReadLimit")

var linesSpec = httpcore.Spec{
	Pkg: "lines", Schemes: []string{"http"}, Verb: "get", Want: "text/plain", Item: "a line",
	Reserved: []string{"Upgrade"},
	Codes: &httpcore.Codes{
		Of: func(err error) (int, string, bool) {
			if ce, ok := errors.AsType[*closeError](err); ok {
				return ce.code, ce.reason, true
			}
			return 0, "", false
		},
		New: func(code int, reason string) error { return &closeError{code, reason} },
	},
	TooBig: errTooLong,
}

// conn is one stream of lines.
type conn struct {
	resp   *http.Response
	r      *bufio.Reader
	tr     *httpcore.Transport
	cancel context.CancelFunc
}

type lines struct{ *httpcore.Core }

func (l *lines) Dial(ctx context.Context, a *httpcore.Attempt, _ *httpcore.State) (*conn, *http.Response, error) {
	sctx, cancel := context.WithCancel(context.Background()) // the stream's: it outlives the attempt's ctx
	unbind := context.AfterFunc(ctx, cancel)
	tr := l.NewTransport(sctx)
	req, err := http.NewRequestWithContext(sctx, http.MethodGet, a.Raw, nil)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	req.Header = a.Header
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if !unbind() && err == nil {
		_ = resp.Body.Close()
		err = ctx.Err()
	}
	if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/plain" {
		cancel()
		tr.End()
		if err != nil {
			return nil, nil, err
		}
		return nil, resp, nil
	}
	return &conn{resp: resp, r: bufio.NewReaderSize(resp.Body, int(l.ReadLimit)), tr: tr, cancel: cancel}, nil, nil
}

// Ping always has its pong: what the heartbeat watches is Invalidate and
// the supervisor stopping.
func (l *lines) Ping(context.Context, *conn, *httpcore.State) error { return nil }

func (l *lines) Close(c *conn, _ *httpcore.State) error {
	err := c.resp.Body.Close()
	c.cancel()
	c.tr.End()
	return err
}

var linesReader = httpcore.Reader[*conn, string]{
	Read: func(_ context.Context, c *conn, _ *httpcore.State) (string, error) {
		line, err := c.r.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			return "", fmt.Errorf("read: %w", errTooLong)
		case err != nil:
			return "", fmt.Errorf("read: %w", err)
		}
		s := strings.TrimSuffix(string(line), "\n")
		if rest, ok := strings.CutPrefix(s, "close "); ok {
			code, reason, _ := strings.Cut(rest, " ")
			n, _ := strconv.Atoi(code)
			return "", fmt.Errorf("read: %w", &closeError{n, reason})
		}
		return s, nil
	},
	Drop: func(c *conn) { _ = c.resp.Body.Close() },
}

// newLines returns a supervisor of the lines library.
func newLines(url string, cfg httpcore.Config, so supervisor.Options[*conn]) (*supervisor.Supervisor[*conn], error) {
	cfg.URL = url
	return httpcore.New(&linesSpec, cfg, so, func(c *httpcore.Core) (httpcore.Library[*conn], error) { return &lines{c}, nil })
}

// fast are small, deterministic delays for socket tests.
func fast() supervisor.Options[*conn] {
	return supervisor.Options[*conn]{
		Settings: supervisor.Settings{
			Backoff:        backoff.Config{Strategy: backoff.Exponential, Base: 20 * time.Millisecond, Cap: 200 * time.Millisecond},
			ConnectTimeout: 2 * time.Second,
		},
	}
}

// server answers every GET with answer, run on a goroutine of the
// handler's; it counts the requests and keeps the last one's.
type server struct {
	*httptest.Server
	requests atomic.Int64
	mu       sync.Mutex
	last     *http.Request
	at       time.Time // when the last request came
}

func serve(t *testing.T, answer func(n int64, w http.ResponseWriter, r *http.Request)) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := s.requests.Add(1)
		s.mu.Lock()
		s.last, s.at = r, time.Now()
		s.mu.Unlock()
		answer(n, w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) lastRequest() (*http.Request, time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last, s.at
}

// stream answers 200 text/plain and writes lines, flushing each, then
// holds the stream open until the client or the test ends it.
func stream(w http.ResponseWriter, r *http.Request, lines ...string) {
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusOK)
	for _, l := range lines {
		_, _ = fmt.Fprintln(w, l)
	}
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// refuse answers code with a body that must never be shown.
func refuse(code int, header ...string) func(int64, http.ResponseWriter, *http.Request) {
	return func(_ int64, w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		http.Error(w, "upstream db-7.internal refused", code)
	}
}

func mustLines(t *testing.T, url string, cfg httpcore.Config, so supervisor.Options[*conn]) *supervisor.Supervisor[*conn] {
	t.Helper()
	s, err := newLines(url, cfg, so)
	require.NoError(t, err)
	return s
}
