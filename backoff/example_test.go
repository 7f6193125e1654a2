package backoff_test

import (
	"context"
	"errors"
	"fmt"
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
