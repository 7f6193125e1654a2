package sse

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/redial-go/redial/internal/httpcore"
)

// library is Server-Sent Events over net/http under the core: the
// streaming GET, the read (Watch) and the close.
type library struct {
	*httpcore.Core
	feed *feed // where the events go, and the position the next request resumes from
}

// Dial makes one streaming GET, bounded by ctx (the supervisor's
// ConnectTimeout) until the server has answered, and returns the stream
// once the answer is 200 text/event-stream. The request carries
// Accept: text/event-stream, Cache-Control: no-cache and, when the
// program has received an event with an id (or Options.LastEventID is
// set), Last-Event-ID: that id. A failed attempt leaves nothing open.
func (l *library) Dial(ctx context.Context, a *httpcore.Attempt, _ *httpcore.State) (*Stream, *http.Response, error) {
	lastID, gen := l.feed.position()
	s := newStream(l.Core, gen, lastID)
	unbind := context.AfterFunc(ctx, func() { s.cancel(context.Cause(ctx)) })
	req, err := http.NewRequestWithContext(s.ctx, http.MethodGet, a.Raw, nil)
	if err != nil { // the url was checked: this is the hook's doing
		unbind()
		s.close()
		return nil, nil, err
	}
	req.Header = a.Header
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	req.Header.Del("Last-Event-ID")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := (&http.Client{Transport: s.tr}).Do(req)
	if !unbind() { // ctx ended: the attempt timed out, or the supervisor stops
		if err == nil {
			_ = resp.Body.Close()
		}
		s.close()
		return nil, nil, fmt.Errorf("%w", context.Cause(ctx))
	}
	if err != nil {
		s.close()
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK || mediaType(resp.Header.Get("Content-Type")) != "text/event-stream" {
		s.close() // the core closes the body unread: one that echoes the request never reaches an error
		return nil, resp, nil
	}
	s.open(resp)
	return s, nil, nil
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

// Close closes s: its body, its connection and its transport. Events it
// read that the program has not taken yet are dropped (see Events).
func (l *library) Close(s *Stream, _ *httpcore.State) error {
	l.feed.fence(s, nil)
	s.close()
	return nil
}
