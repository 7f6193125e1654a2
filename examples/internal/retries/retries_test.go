package retries

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/redial-go/redial/health"
)

// feed is a Supervised that sends the given statuses, then closes.
type feed []health.Status

func (feed) Name() string { return "ws://h/x?token=xxxxx" }

func (f feed) Subscribe() (<-chan health.Status, func()) {
	ch := make(chan health.Status, len(f))
	for _, st := range f {
		ch <- st
	}
	close(ch)
	return ch, func() {}
}

func TestPrintSaysEachFailureOnce(t *testing.T) {
	t0 := time.Now()
	refused := errors.New("dial tcp: connection refused")
	backoff := func(attempt int, at time.Time, err error) health.Status {
		return health.Status{State: health.Backoff, ConsecutiveFailures: attempt, LastFailure: at, Err: err, NextAttempt: time.Now().Add(time.Hour)}
	}
	var out strings.Builder
	Print(&out, feed{
		{State: health.Connecting},
		backoff(1, t0, refused),
		backoff(1, t0, refused), // the same failure again: no line
		{State: health.Connecting, ConsecutiveFailures: 1, LastFailure: t0},
		backoff(2, t0.Add(time.Second), refused),
		{State: health.Connected},
		backoff(0, t0.Add(2*time.Second), errors.New("connection lost: EOF")),
		{State: health.Failed, ConsecutiveFailures: 3, LastFailure: t0.Add(3 * time.Second), Err: refused},
	})()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if assert.Len(t, lines, 3, out.String()) {
		assert.Regexp(t, `^ws://h/x\?token=xxxxx: attempt 1 failed: dial tcp: connection refused; retrying in (1h0m0s|59m59\.\d+s)$`, lines[0])
		assert.Contains(t, lines[1], "attempt 2 failed")
		assert.Regexp(t, `: connection lost: EOF; retrying in `, lines[2])
	}
	assert.Equal(t, []int{1, 2}, Attempts(out.String(), "ws://h/x?token=xxxxx"))
	assert.Empty(t, Attempts(out.String(), "ws://h/x"), "another target")
}
