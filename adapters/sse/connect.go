package sse

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/redial-go/redial/internal/redact"
	"github.com/redial-go/redial/internal/statuscode"
)

// maxContentType is how much of an unexpected Content-Type an error shows.
const maxContentType = 100

// Connect makes one streaming GET, bounded by ctx (the supervisor's
// ConnectTimeout) until the server has answered, and returns the stream
// once the answer is 200 text/event-stream. The request carries
// Accept: text/event-stream, Cache-Control: no-cache and, when the
// program has received an event with an id (or Options.LastEventID is
// set), Last-Event-ID: that id. Its errors hold neither the url's
// credentials nor the response body: any other answer is a
// *ResponseError, anything else a new error with redacted text that
// unwraps only to network and context errors. A failed attempt leaves
// nothing open.
func (c *connector) Connect(ctx context.Context) (*stream, error) { return c.connectTo(ctx, 0) }

// connectTo is Connect on endpoint i.
func (c *connector) connectTo(ctx context.Context, i int) (*stream, error) {
	get := c.step("get", i)
	raw, header, tg, err := c.prepare(ctx, i)
	if err != nil {
		return nil, err
	}
	lastID, gen := c.feed.position()
	s := newStream(c.o.TLSConfig, tg, gen, lastID, c.o.IdleTimeout)
	unbind := context.AfterFunc(ctx, func() { s.cancel(context.Cause(ctx)) })
	req, err := http.NewRequestWithContext(s.ctx, http.MethodGet, raw, nil)
	if err != nil { // the url was checked: this is the hook's doing
		unbind()
		s.close()
		return nil, c.requestError(get, tg, err)
	}
	req.Header = header
	header.Set("Accept", "text/event-stream")
	header.Set("Cache-Control", "no-cache")
	header.Del("Last-Event-ID")
	if lastID != "" {
		header.Set("Last-Event-ID", lastID)
	}
	resp, err := (&http.Client{Transport: s.tr}).Do(req)
	if !unbind() { // ctx ended: the attempt timed out, or the supervisor stops
		if err == nil {
			_ = resp.Body.Close()
		}
		s.close()
		return nil, fmt.Errorf("%s: %w", get, context.Cause(ctx))
	}
	if err != nil {
		s.close()
		return nil, c.requestError(get, tg, err)
	}
	if err := c.check(resp, tg); err != nil {
		_ = resp.Body.Close() // unread: a body that echoes the request never reaches an error
		s.close()
		return nil, redact.Scrubbed(fmt.Sprintf("%s: %v", get, err), err)
	}
	s.open(resp)
	return s, nil
}

// check returns nil for an event stream, else the *ResponseError that
// says what came instead.
func (c *connector) check(resp *http.Response, tg redact.Target) error {
	if resp.StatusCode == http.StatusOK {
		ct := resp.Header.Get("Content-Type")
		if mediaType(ct) == "text/event-stream" {
			return nil
		}
		ct = tg.Text(ct)
		if len(ct) > maxContentType {
			ct = strings.ToValidUTF8(ct[:maxContentType], "") + "..."
		}
		return &ResponseError{StatusCode: http.StatusOK, ContentType: ct}
	}
	re := &ResponseError{StatusCode: resp.StatusCode}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		re.RetryAfter = min(statuscode.RetryAfter(resp.Header.Get("Retry-After"), time.Now()), c.maxHint)
	}
	return re
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

// requestError builds Connect's error for a request that got no answer:
// redacted text and only the safe parts of err's chain.
func (c *connector) requestError(get string, tg redact.Target, err error) error {
	text := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) { // the request failed: its error repeats the URL
		text = ue.Err.Error()
	}
	return redact.Scrubbed(fmt.Sprintf("%s: %s", get, tg.Text(text)), redact.SafeChain(err)...)
}

// Close closes s: its body, its connection and its transport. Events it
// read that the program has not taken yet are dropped (see Events).
func (c *connector) Close(s *stream) error {
	c.feed.fence(s, nil)
	s.close()
	return nil
}
