package postgres

import (
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// poolCloseGrace is how long closing a pool may take before its
// connections are cut: pgx gives each 15s to say goodbye, which on a
// stalled network is 15s of a Run that should have returned.
const poolCloseGrace = time.Second

// closePool closes p, cutting the connections d still tracks after
// poolCloseGrace.
func closePool(p *pgxpool.Pool, d *dialer) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Close()
	}()
	grace := time.NewTimer(poolCloseGrace)
	defer grace.Stop()
	select {
	case <-done:
		return
	case <-grace.C:
		d.cutAll()
	}
	<-done
}
