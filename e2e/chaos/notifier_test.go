package chaos

import (
	"context"
	"sync"
	"time"
)

// notifyInterval is the time between two rounds of the notifier: each
// round sends every Listener its next number.
const notifyInterval = 50 * time.Millisecond

// notify sends numbered notifications to every Listener, straight to the
// cluster, from one goroutine, until ctx ends. A failed NOTIFY (the
// cluster restarts) ends the round; its number is sent again next round.
func notify(ctx context.Context, wg *sync.WaitGroup, listeners []*listenerSubject) {
	wg.Go(func() {
		tick := time.NewTicker(notifyInterval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			for _, l := range listeners {
				if _, err := l.send(ctx); err != nil {
					break
				}
			}
		}
	})
}
