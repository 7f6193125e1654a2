package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/redial-go/redial/supervisor"
)

// beforeConnect is the type of the BeforeConnect option of every
// constructor.
type beforeConnect = func(ctx context.Context, cfg *pgconn.Config) error

// connectTimeout returns the supervisor's ConnectTimeout, its default
// when 0 (a negative one is refused by the supervisor).
func connectTimeout(s supervisor.Settings) time.Duration {
	if s.ConnectTimeout == 0 {
		return supervisor.DefaultConnectTimeout
	}
	return max(s.ConnectTimeout, 0)
}

// defaultConnectTimeout sets cfg's connect timeout to d unless the DSN
// (connect_timeout) or Configure set one: pgx and pgxpool would otherwise
// let a dial that nobody waits for any more (a pool's background dial, a
// cancel request) hang on a dead path for minutes.
func defaultConnectTimeout(cfg *pgconn.Config, d time.Duration) {
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = d
	}
}

// prepare readies cfg, a copy of the template config steered to
// endpoint at (-1: not steered), for one connection: BeforeConnect may
// change it, the password it leaves is one more secret, and its dials
// become a session of d.
func (t target) prepare(ctx context.Context, cfg *pgconn.Config, at int, before beforeConnect, d *dialer) error {
	if before != nil {
		err := before(ctx, cfg)
		t.secrets.add(cfg.Password)
		if err != nil {
			return &hookError{err}
		}
	}
	d.session(cfg, at)
	return nil
}
