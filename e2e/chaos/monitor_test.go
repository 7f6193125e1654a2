package chaos

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// monitorPeriod is how often the monitor reads pg_stat_activity and
// checks the connection counts.
const monitorPeriod = 100 * time.Millisecond

// monitor keeps the one-connection rule checked while the run goes on:
// it polls the PostgreSQL subjects' counts and sweeps every count for an
// overlap longer than overlapGrace. It also keeps the peak number of
// goroutines.
type monitor struct {
	helper *pgxpool.Pool
	live   *liveCounter
	pg     []string // PostgreSQL subjects
	peak   atomic.Int64
}

func (m *monitor) start(ctx context.Context, wg *sync.WaitGroup) {
	wg.Go(func() {
		tick := time.NewTicker(monitorPeriod)
		defer tick.Stop()
		for {
			m.once(ctx)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	})
}

func (m *monitor) once(ctx context.Context) {
	pctx, cancel := context.WithTimeout(ctx, time.Second)
	pollPG(pctx, m.helper, m.live, m.pg)
	cancel()
	m.live.sweep()
	if n := int64(runtime.NumGoroutine()); n > m.peak.Load() {
		m.peak.Store(n)
	}
}
