package admit_test

import (
	"fmt"
	"time"

	"github.com/redial-go/redial/admit"
)

// A server that takes two new connections a second meets six clients at
// once: it takes the first, holds two for their slots (at most Hold) and
// sends the rest away to theirs (a WebSocket server that accepted before
// asking closes with the same hint); one comes back and is held until
// its slot.
func Example() {
	p, err := admit.New(admit.Config{Rate: 2, Hold: time.Second})
	if err != nil {
		panic(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 6 {
		if wait, ok := p.Plan(t0); ok {
			fmt.Printf("client %d: admitted in %v\n", i, wait)
		} else {
			fmt.Printf("client %d: 503, Retry-After: %d\n", i, wait/time.Second)
		}
	}
	if wait, ok := p.Plan(t0); !ok { // a WebSocket server that accepted first
		fmt.Printf("client 6: close %d %q\n", admit.CloseTryAgainLater, admit.CloseReason(wait))
	}
	wait, ok := p.Plan(t0.Add(1500 * time.Millisecond))
	fmt.Printf("client 3 back at 1.5s: admitted %v in %v\n", ok, wait)
	// Output:
	// client 0: admitted in 0s
	// client 1: admitted in 500ms
	// client 2: admitted in 1s
	// client 3: 503, Retry-After: 1
	// client 4: 503, Retry-After: 1
	// client 5: 503, Retry-After: 2
	// client 6: close 1013 "retry-after=2"
	// client 3 back at 1.5s: admitted true in 500ms
}
