package sse

import (
	"sync/atomic"
	"time"

	"github.com/redial-go/redial/backoff"
)

// reconnection is the Client's reconnection time, as EventSource's: the
// last `retry:` any of its streams gave, for the rest of its life. A
// `retry: 0` sets it to 0: no wait the server asks for, the backoff's only
// (the supervisor takes a hint of 0 as none).
type reconnection struct{ d atomic.Int64 }

// set records d, a stream's last `retry:`.
func (r *reconnection) set(d time.Duration) { r.d.Store(int64(d)) }

// hint is a step of the Client's Classify: an error that does not end the
// Client waits at least the reconnection time, as a hint (the backoff may
// wait longer, MaxHint caps it); a longer hint of its own stands.
func (r *reconnection) hint(err error) error {
	d := time.Duration(r.d.Load())
	if d <= 0 || err == nil || backoff.IsPermanent(err) {
		return err
	}
	if h, ok := backoff.RetryAfterHint(err); ok && h >= d {
		return err
	}
	return backoff.RetryAfter(err, d)
}
