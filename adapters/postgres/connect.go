package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/redial-go/redial/internal/callback"
	"github.com/redial-go/redial/supervisor"
)

type beforeConnect = func(ctx context.Context, cfg *pgconn.Config) error

// connectTimeout returns a Settings.ConnectTimeout with its default.
func connectTimeout(d time.Duration) time.Duration {
	if d == 0 {
		return supervisor.DefaultConnectTimeout
	}
	return max(d, 0)
}

// defaultConnectTimeout sets cfg's connect timeout to d unless the DSN or
// Configure set one: pgx would let a dial nobody waits for (a pool's
// background dial, a cancel request) hang on a dead path for minutes.
func defaultConnectTimeout(cfg *pgconn.Config, d time.Duration) {
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = d
	}
}

// prepare readies cfg, a copy of the template steered to endpoint at (-1:
// not steered), for one connection: BeforeConnect may change it, the
// password it leaves is one more secret, and its dials become a session
// of d.
func (t target) prepare(ctx context.Context, cfg *pgconn.Config, at int, before beforeConnect, d *dialer) error {
	if before != nil {
		err := callback.Guard("BeforeConnect", func() error { return before(ctx, cfg) })
		t.remember(cfg.Password)
		if err != nil {
			return &hookError{err}
		}
	}
	d.session(cfg, at)
	return nil
}
