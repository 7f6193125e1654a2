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
// Permanent, or has a method Permanent() bool that returns true, unless a
// Retryable mark wraps that error. It allocates nothing.
func IsPermanent(err error) bool {
	for err != nil {
		switch e := err.(type) {
		case *retryableError:
			return false
		case permanent:
			if e.Permanent() {
				return true
			}
		}
		switch e := err.(type) {
		case interface{ Unwrap() error }:
			err = e.Unwrap()
		case interface{ Unwrap() []error }:
			for _, w := range e.Unwrap() {
				if IsPermanent(w) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
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

// Retryable lifts a permanent mark: IsPermanent(Retryable(err)) is false
// whatever err wraps (a Classify retries a 401 when the next attempt may
// carry new credentials). The error's text and chain are unchanged.
// Retryable(nil) is nil.
func Retryable(err error) error {
	if err == nil {
		return nil
	}
	return &retryableError{err}
}

type retryableError struct{ err error }

func (e *retryableError) Error() string   { return e.err.Error() }
func (e *retryableError) Unwrap() error   { return e.err }
func (e *retryableError) Permanent() bool { return false }
