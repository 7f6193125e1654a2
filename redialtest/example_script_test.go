package redialtest_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/redialtest"
	"github.com/redial-go/redial/supervisor"
)

// A Script fails twice, then connects, and records every attempt. Outside
// a synctest bubble the waits are real, so print what happened, not when
// (TestExampleRetryTiming checks the when inside a bubble).
func ExampleScript() {
	script := new(redialtest.Script).Fail(errors.New("refused"), backoff.RetryAfter(errors.New("busy"), time.Millisecond))
	sup, _ := supervisor.New(script, supervisor.Options[*redialtest.Conn]{Settings: supervisor.Settings{
		Backoff: backoff.Config{Base: time.Millisecond, Cap: 10 * time.Millisecond}}})
	states, _ := sup.Subscribe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- sup.Run(ctx) }()
	for (<-states).State != health.Connected {
	}
	script.Last().Break(errors.New("reset")) // the server went away
	for st := <-states; st.Connects < 2; st = <-states {
	}
	cancel()
	fmt.Println("Run:", <-done)
	for i, a := range script.Attempts() {
		fmt.Printf("attempt %d: %v, %v\n", i+1, a.Err, a.Conn)
	}
	// Output:
	// Run: <nil>
	// attempt 1: refused, <nil>
	// attempt 2: busy, <nil>
	// attempt 3: <nil>, conn 3
	// attempt 4: <nil>, conn 4
}
