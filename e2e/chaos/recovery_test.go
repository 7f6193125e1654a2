package chaos

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/redial-go/redial/health"
)

// waitState waits until s reports state, or ctx ends, or s's health
// channel closes (it stopped or gave up: no state comes any more). Unlike
// testkit.WaitStatus it returns an error instead of failing the test, so
// that many goroutines can wait at once.
func waitState(ctx context.Context, s interface {
	Subscribe() (<-chan health.Status, func())
}, state health.State) error {
	ch, unsub := s.Subscribe()
	defer unsub()
	var last health.Status
	for {
		select {
		case st, open := <-ch:
			if !open {
				return fmt.Errorf("not %s: ended %s (attempt %d, err %v)", state, last.State, last.ConsecutiveFailures, last.Err)
			}
			if st.State == state {
				return nil
			}
			last = st
		case <-ctx.Done():
			return fmt.Errorf("not %s: %s (attempt %d, err %v)", state, last.State, last.ConsecutiveFailures, last.Err)
		}
	}
}

// recovered waits until s is Connected and completes a round trip, or
// until ctx ends.
func recovered(ctx context.Context, s subject) error {
	for {
		if err := waitState(ctx, s, health.Connected); err != nil {
			return err
		}
		trip, release, err := prepare(ctx, s)
		if err == nil {
			rctx, cancel := context.WithTimeout(ctx, rtTimeout)
			err = trip(rctx)
			cancel()
			release()
		}
		if err == nil {
			return nil
		}
		if !pause(ctx, 50*time.Millisecond) {
			return fmt.Errorf("Connected, but the round trip failed: %w", err)
		}
	}
}

// checkAll runs check on every subject at once, each with a ctx that
// ends at deadline, and reports each failure as a violation of rule.
func checkAll(subjects []subject, deadline time.Time, v *violations, rule, what string, check func(context.Context, subject) error) {
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	var wg sync.WaitGroup
	for _, s := range subjects {
		wg.Go(func() {
			if err := check(ctx, s); err != nil {
				v.add(rule, s.base().name, "%s: %v", what, err)
			}
		})
	}
	wg.Wait()
}

// checkRecovery is the recovery rule: within Cap + recoverMargin of the
// moment the last fault was removed, every subject is Connected and
// completes a round trip.
func checkRecovery(subjects []subject, faultsEnded time.Time, v *violations) time.Duration {
	bound := backoffCap + recoverMargin
	checkAll(subjects, faultsEnded.Add(bound), v, ruleRecovery,
		fmt.Sprintf("not Connected with a working round trip within %v (Cap %v + margin %v) of the last fault's end", bound, backoffCap, recoverMargin),
		recovered)
	return time.Since(faultsEnded)
}

// checkFences proves every sequence complete: each subject receives a
// message sent after the recovery, so every number before it has been
// checked by its feedCheck or noteCheck.
func checkFences(subjects []subject, v *violations) {
	checkAll(subjects, time.Now().Add(5*time.Second), v, ruleSequence, "the last message sent after the recovery was not received",
		func(ctx context.Context, s subject) error { return s.fence(ctx) })
}
