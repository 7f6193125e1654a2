package chaos

import (
	"context"
	"sync"
	"time"
)

// every runs step every poolInterval on a goroutine of wg, each run bounded
// by timeout, until ctx ends.
func every(ctx context.Context, wg *sync.WaitGroup, timeout time.Duration, step func(context.Context)) {
	wg.Go(func() {
		tick := time.NewTicker(poolInterval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			sctx, cancel := context.WithTimeout(ctx, timeout)
			step(sctx)
			cancel()
		}
	})
}
