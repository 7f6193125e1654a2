package backoff_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"time"

	"github.com/redial-go/redial/backoff"
)

func ExampleRetry() {
	calls := 0
	v, err := backoff.Retry(context.Background(), func(context.Context) (string, error) {
		calls++
		if calls < 3 {
			return "", errors.New("connection refused")
		}
		return "pong", nil
	}, backoff.RetryOptions{Backoff: backoff.Config{Base: time.Millisecond, Cap: 5 * time.Millisecond}})
	fmt.Println(v, err, calls)
	// Output: pong <nil> 3
}

func ExampleBackoff_Next() {
	b, _ := backoff.New(backoff.Config{Strategy: backoff.Exponential, Base: time.Second, Cap: 5 * time.Second})
	for range 4 {
		fmt.Print(b.Next(), " ")
	}
	fmt.Println()
	// Output: 1s 2s 4s 5s
}

func ExampleBreaker() {
	b, _ := backoff.NewBreaker(backoff.BreakerConfig{Failures: 2, Cooldown: time.Minute})
	down := errors.New("connection refused")
	for range 2 {
		if b.Allow() == nil {
			b.Record(down) // two failures in a row open it
		}
	}
	err := b.Allow()
	d, _ := backoff.RetryAfterHint(err)
	fmt.Println(b.State(), errors.Is(err, backoff.ErrOpen), d.Round(time.Second))

	// Retry with the open breaker does not call op at all.
	calls := 0
	_, err = backoff.Retry(context.Background(), func(context.Context) (string, error) {
		calls++
		return "pong", nil
	}, backoff.RetryOptions{Breaker: b})
	fmt.Println(errors.Is(err, backoff.ErrOpen), calls)
	// Output:
	// open true 1m0s
	// true 0
}

func ExampleHedge() {
	var mu sync.Mutex
	copies := 0
	v, err := backoff.Hedge(context.Background(), func(ctx context.Context) (string, error) {
		mu.Lock()
		copies++
		first := copies == 1
		mu.Unlock()
		if first { // the first copy is slow: the second one wins and cancels it
			select {
			case <-time.After(time.Second):
				return "slow", nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}
		return "fast", nil
	}, backoff.HedgeOptions{Delay: 10 * time.Millisecond})
	fmt.Println(v, err, copies)
	// Output: fast <nil> 2
}

// A Classify that retries a refusal the transport called final, because the
// next attempt carries a fresh token: the chain is kept for errors.As.
func ExampleRetryable() {
	refused := &fs.PathError{Op: "dial", Path: "feed", Err: fs.ErrPermission}
	classify := func(err error) error {
		if errors.Is(err, fs.ErrPermission) {
			return backoff.Retryable(err)
		}
		return err
	}
	err := classify(backoff.Permanent(refused))
	var pe *fs.PathError
	fmt.Println(backoff.IsPermanent(err), errors.As(err, &pe))
	// Output: false true
}
