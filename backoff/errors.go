package backoff

import (
	"errors"
	"time"
)

// Permanent marks err as not worth retrying: Retry and the supervisor stop
// at once. The error's text and chain are unchanged (errors.Is and
// errors.As see through it). Permanent(nil) is nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err}
}

// IsPermanent reports whether err or any error it wraps was marked by
// Permanent, or has a method Permanent() bool that returns true.
// It allocates nothing (a Breaker calls it on every failure).
func IsPermanent(err error) bool {
	p, ok := errors.AsType[permanent](err)
	return ok && p.Permanent()
}

// permanent is an error that can say it is final.
type permanent interface {
	error
	Permanent() bool
}

type permanentError struct{ err error }

func (e *permanentError) Error() string   { return e.err.Error() }
func (e *permanentError) Unwrap() error   { return e.err }
func (e *permanentError) Permanent() bool { return true }

// RetryAfter marks err with a server hint: wait at least d before the next
// attempt. The error's text and chain are unchanged. RetryAfter(nil, d) is
// nil; a d <= 0 carries no hint.
func RetryAfter(err error, d time.Duration) error {
	if err == nil {
		return nil
	}
	return &retryAfterError{err, d}
}

// RetryAfterHint returns the first hint found in err's chain: one set by
// RetryAfter, or one from any error with a method RetryAfter() time.Duration.
// ok is false when there is none or it is not positive.
func RetryAfterHint(err error) (d time.Duration, ok bool) {
	var h interface{ RetryAfter() time.Duration }
	if !errors.As(err, &h) {
		return 0, false
	}
	d = h.RetryAfter()
	return d, d > 0
}

type retryAfterError struct {
	err error
	d   time.Duration
}

func (e *retryAfterError) Error() string             { return e.err.Error() }
func (e *retryAfterError) Unwrap() error             { return e.err }
func (e *retryAfterError) RetryAfter() time.Duration { return e.d }

// clampedHint returns err's hint limited to maxHint, or 0 when err has
// none (maxHint <= 0: none is honored).
func clampedHint(err error, maxHint time.Duration) time.Duration {
	d, ok := RetryAfterHint(err)
	if !ok {
		return 0
	}
	return min(d, max(maxHint, 0))
}
