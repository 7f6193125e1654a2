package httpcore

import (
	"errors"
	"net/http"
	"time"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/redact"
	"github.com/redial-go/redial/internal/statuscode"
)

// Classify marks sp's errors for the supervisor, with DefaultCloseHint
// and as if there were no BeforeConnect; see classify. An adapter's
// exported Classify is this.
func (sp *Spec) Classify(err error) error {
	return classify(sp, err, func() time.Duration { return DefaultCloseHint }, false)
}

// classify marks err:
//
//   - an answer that is not the stream asked for, 200 or 204 (the SSE
//     specification: do not reconnect), or 404: backoff.Permanent;
//   - 401 and 403, and close 1008 (policy violation): backoff.Permanent,
//     unless rotating (BeforeConnect is set): an ordinary retry, since the
//     next attempt may carry new credentials;
//   - 429 and 503 with a usable Retry-After: backoff.RetryAfter with it;
//   - close 1012 (service restart) and 1013 (try again later): a hint, the
//     one the reason names ("retry-after=N") or closeHint();
//   - anything else, such as close 1000, 1001 and 1006: unchanged.
//
// An error already marked Permanent or carrying a hint is returned as is.
func classify(sp *Spec, err error, closeHint func() time.Duration, rotating bool) error {
	if err == nil || statuscode.Classified(err) {
		return err
	}
	if he, ok := errors.AsType[*HandshakeError](err); ok {
		switch he.StatusCode {
		case http.StatusOK, http.StatusNoContent:
			return backoff.Permanent(err)
		case http.StatusUnauthorized, http.StatusForbidden:
			if rotating {
				return err
			}
		}
		return statuscode.HTTP(err, he.StatusCode, he.RetryAfter)
	}
	if sp.Codes != nil {
		if code, reason, ok := sp.Codes.Of(err); ok {
			if rotating && code == statuscode.ClosePolicyViolation {
				return err
			}
			return statuscode.Close(err, code, reason, closeHint)
		}
	}
	return err
}

// Classify is the first step of the supervisor's Classify, which sees
// every error of Connect, OnConnect, Watch and Invalidate: err made safe,
// then classified with Config's CloseHint, spread over [CloseHint,
// 1.5*CloseHint) so that a fleet sent away at once does not come back at
// once, and BeforeConnect.
func (c *Core) Classify(err error) error {
	return classify(c.Spec, c.Safe(err), c.spreadCloseHint, c.BeforeConnect != nil)
}

// spreadCloseHint draws a wait from [CloseHint, 1.5*CloseHint).
func (c *Core) spreadCloseHint() time.Duration {
	d := c.CloseHint
	if d <= 1 {
		return d
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return d + time.Duration(c.rng.Uint64()%uint64(d/2))
}

// Safe returns err with the secret set masked in its text and in every
// text the server sent (a close reason), and a chain that keeps only what
// holds no secret: the close error rebuilt with its reason masked, a
// HandshakeError, the sentinels of the core and the library, network and
// context errors, and err's backoff marks. Every error the core hands to
// the supervisor or to the program passes here, before and after Run
// returned. An error with nothing to mask is returned as it is.
func (c *Core) Safe(err error) error {
	if err == nil {
		return nil
	}
	var (
		code    int
		reason  string
		closing bool
	)
	if c.Codes != nil {
		code, reason, closing = c.Codes.Of(err)
	}
	if text := err.Error(); c.set.Text(text) == text && (!closing || c.set.Text(reason) == reason) {
		return err
	}
	keep := append(redact.SafeChain(err), c.sentinels(err)...)
	if closing {
		keep = append(keep, c.Codes.New(code, c.set.Text(reason)))
	}
	if he, ok := errors.AsType[*HandshakeError](err); ok {
		keep = append(keep, he)
	}
	return c.set.Error(err, keep...)
}

// Text returns text with the secret set masked.
func (c *Core) Text(text string) string { return c.set.Text(text) }

// sentinels returns the sentinels of the core and the library in err's chain.
func (c *Core) sentinels(err error) []error {
	var out []error
	for _, s := range [][]error{{ErrHeartbeat, ErrIdleTimeout, ErrUnexpectedData, ErrReaderBusy, c.TooBig}, c.Keep} {
		for _, e := range s {
			if e != nil && errors.Is(err, e) {
				out = append(out, e)
			}
		}
	}
	return out
}
