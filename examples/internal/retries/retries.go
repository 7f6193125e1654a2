// Package retries says, for the examples, what a supervised connection does
// while it is down: one line for each failed attempt or lost connection,
// naming the target (redacted), the error and the wait before the next
// attempt. A mistyped address or a closed port shows at once instead of
// looking like a hang.
package retries

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"time"

	"github.com/redial-go/redial/health"
)

// Supervised is what every redial supervisor offers: a Name (the
// redacted target unless the program chose one) and a health channel.
type Supervised interface {
	Name() string
	Subscribe() (<-chan health.Status, func())
}

// Print writes a line to w for each failed attempt or lost connection of
// s, at most one per attempt, until s stops or gives up:
//
//	ws://127.0.0.1:8080/feed?token=xxxxx: attempt 2 failed: dial tcp 127.0.0.1:8080: connect: connection refused; retrying in 412ms
//	ws://127.0.0.1:8080/feed?token=xxxxx: connection lost: EOF; retrying in 80ms
//
// Call it before s runs. wait returns once s's health channel has closed
// (after Stopped or Failed) and the last line is written.
func Print(w io.Writer, s Supervised) (wait func()) {
	ch, _ := s.Subscribe() // closed after the final status
	done := make(chan struct{})
	go func() {
		defer close(done)
		var last time.Time // LastFailure of the last line: one line per failure
		for st := range ch {
			if st.State != health.Backoff || st.LastFailure.Equal(last) {
				continue
			}
			last = st.LastFailure
			what := fmt.Sprint(st.Err) // a lost connection's error says so
			if st.ConsecutiveFailures > 0 {
				what = fmt.Sprintf("attempt %d failed: %v", st.ConsecutiveFailures, st.Err)
			}
			fmt.Fprintf(w, "%s: %s; retrying in %v\n", s.Name(), what, st.RetryIn(time.Now()).Round(time.Millisecond))
		}
	}()
	return func() { <-done }
}

// Attempts returns the attempt numbers of the lines Print wrote about
// target's failed attempts in out, in order: what the examples' tests
// check.
func Attempts(out, target string) []int {
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(target) + `: attempt (\d+) failed: .+; retrying in \S+$`)
	var n []int
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		i, _ := strconv.Atoi(m[1])
		n = append(n, i)
	}
	return n
}
