package httpcore

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/redial-go/redial/internal/redact"
	"github.com/redial-go/redial/internal/statuscode"
)

// HandshakeError is an answer the server gave instead of the stream asked
// for: an HTTP status other than 101 Switching Protocols (WebSocket) or a
// 200 that is not an event stream (SSE). The response body is never kept:
// it may echo the request's credentials or hold internal details.
type HandshakeError struct {
	StatusCode  int           // the HTTP status, such as 401 or 503
	RetryAfter  time.Duration // a 429's or 503's Retry-After, clamped to the supervisor's MaxHint (what is honored); 0 when absent, unusable or in the past
	ContentType string        // a 200's Content-Type, redacted and cut to 100 bytes; "" otherwise
	want        string        // what a 200 was to be
}

func (e *HandshakeError) Error() string {
	status := fmt.Sprintf("server answered %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	not := ""
	if e.want != "" {
		not = ", not " + e.want
	}
	switch {
	case e.StatusCode == http.StatusOK && e.ContentType == "":
		return status + " with no Content-Type" + not
	case e.StatusCode == http.StatusOK:
		return fmt.Sprintf("%s with Content-Type %q%s", status, e.ContentType, not)
	case e.StatusCode == http.StatusNoContent:
		return status + ": the server ended the stream for good"
	case e.RetryAfter >= time.Second:
		return fmt.Sprintf("%s (Retry-After %v)", status, e.RetryAfter.Round(time.Second))
	case e.RetryAfter > 0: // clamped to a MaxHint under a second
		return fmt.Sprintf("%s (Retry-After %v)", status, e.RetryAfter)
	}
	return status
}

// maxContentType is how much of an unexpected Content-Type an error shows.
const maxContentType = 100

// refusal reads what a refused attempt's answer says: only its status and
// headers; its body is closed unread.
func (c *Core) refusal(resp *http.Response) *HandshakeError {
	_ = resp.Body.Close()
	he := &HandshakeError{StatusCode: resp.StatusCode, want: c.Want}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		he.RetryAfter = min(statuscode.RetryAfter(resp.Header.Get("Retry-After"), time.Now()), c.maxHint)
	case http.StatusOK:
		he.ContentType = c.set.Text(resp.Header.Get("Content-Type"))
		if len(he.ContentType) > maxContentType {
			he.ContentType = strings.ToValidUTF8(he.ContentType[:maxContentType], "") + "..."
		}
	}
	return he
}

// dialError is an attempt's error: a *HandshakeError for a refusal (resp
// is not nil), else err's text masked, with only the parts of its chain
// that hold no secret, and ctx's end when it ended the attempt.
func (c *Core) dialError(ctx context.Context, i int, err error, resp *http.Response) error {
	step := c.Step(c.Verb, i)
	if resp != nil {
		he := c.refusal(resp)
		return redact.Scrubbed(step+": "+he.Error(), he)
	}
	text := err.Error()
	if ue, ok := errors.AsType[*url.Error](err); ok { // the request failed: its error repeats the URL
		text = ue.Err.Error()
	}
	keep := append(redact.SafeChain(err), c.sentinels(err)...)
	if ctx.Err() != nil {
		keep = append(keep, ctx.Err())
	}
	return redact.Scrubbed(step+": "+c.set.Text(text), keep...)
}
