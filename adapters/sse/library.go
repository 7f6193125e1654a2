package sse

import (
	"context"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redial-go/redial/internal/httpcore"
)

// library is Server-Sent Events over net/http under the core.
type library struct {
	*httpcore.Core
	feed    *feed         // where the events go, and the position the next request resumes from
	retry   *reconnection // the server's last `retry:`
	timeout time.Duration // the supervisor's ConnectTimeout: bounds a resumed request too
	logger  *slog.Logger  // the supervisor's: told once of an id refused (see refuse)
	name    string        // the supervisor's
	refused atomic.Bool   // an id was refused and logged
}

// Dial makes one streaming GET, bounded by ctx (ConnectTimeout) until the
// server answered 200 text/event-stream; a failed attempt leaves nothing
// open.
func (l *library) Dial(ctx context.Context, a *httpcore.Attempt, _ *httpcore.State) (*stream, *http.Response, error) {
	g, resp, err := l.open(ctx, a)
	if g == nil {
		return nil, resp, err
	}
	return &stream{attempt: a, leg: g, lastSeen: l.feed.position()}, nil, nil
}

// open makes one request of a's, resuming from the feed's position; a
// refusal is (nil, resp, nil).
func (l *library) open(ctx context.Context, a *httpcore.Attempt) (*leg, *http.Response, error) {
	resumed := l.feed.position()
	g := newLeg(l.Core)
	unbind := context.AfterFunc(ctx, func() { g.cancel(context.Cause(ctx)) })
	req, err := http.NewRequestWithContext(g.ctx, http.MethodGet, a.Raw, nil)
	if err != nil { // the url was checked: this is the hook's doing
		unbind()
		g.close()
		return nil, nil, err
	}
	req.Header = a.Header
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	req.Header.Del("Last-Event-ID")
	if resumed != "" {
		req.Header.Set("Last-Event-ID", resumed)
	}
	resp, err := (&http.Client{Transport: g.tr}).Do(req)
	if !unbind() { // ctx ended: the attempt timed out, or the supervisor stops
		if err == nil {
			_ = resp.Body.Close()
		}
		g.close()
		return nil, nil, fmt.Errorf("%w", context.Cause(ctx))
	}
	if err != nil {
		g.close()
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK || mediaType(resp.Header.Get("Content-Type")) != "text/event-stream" {
		g.close() // the core closes the body unread: one that echoes the request never reaches an error
		return nil, resp, nil
	}
	g.open(resp, l.feed, resumed)
	return g, nil, nil
}

// mediaType returns the media type of a Content-Type value, lower case,
// without its parameters.
func mediaType(ct string) string {
	if mt, _, err := mime.ParseMediaType(ct); err == nil {
		return mt
	}
	mt, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// Close closes s. Events it read that the program has not taken yet are
// still delivered (see Events).
func (l *library) Close(s *stream, _ *httpcore.State) error {
	s.close()
	return nil
}
