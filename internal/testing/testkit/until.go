package testkit

import (
	"testing"
	"time"

	"github.com/redial-go/redial/health"
)

// Until reads ch, one subscription's health channel, until a Status
// satisfies ok and returns it. It fails t when none does within d, or
// when the channel closes first (the supervisor's final Status came and
// went); what names the awaited status in the failure, which shows the
// last Status seen.
func Until(t testing.TB, ch <-chan health.Status, d time.Duration, what string, ok func(health.Status) bool) health.Status {
	t.Helper()
	timeout := time.NewTimer(d)
	defer timeout.Stop()
	var last health.Status
	for {
		select {
		case st, open := <-ch:
			if !open {
				t.Fatalf("no status %s: the channel closed; last: %v %v", what, last.State, last.Err)
			}
			last = st
			if ok(st) {
				return st
			}
		case <-timeout.C:
			t.Fatalf("no status %s within %v; last: %v %v", what, d, last.State, last.Err)
		}
	}
}
