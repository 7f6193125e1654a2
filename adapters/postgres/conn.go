package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/redial-go/redial/supervisor"
)

// ConnOptions configures NewConn.
type ConnOptions struct {
	Options
	// Configure, when set, is called once by NewConn with the parsed
	// config: the place for a Tracer or a custom TLS config. nil: none.
	Configure func(*pgx.ConnConfig)
	// OnConnect runs after every connect, before the state is Connected:
	// prepare statements, SET search_path, register types. An error fails
	// the attempt. nil: none.
	OnConnect func(ctx context.Context, conn *pgx.Conn) error
}

// NewConn returns a supervisor over one *pgx.Conn; Run starts it and Conn
// waits for the connection. Defaults: see Options; the Name is "postgres".
//
// A *pgx.Conn is not safe for concurrent use, so the supervisor does not
// watch it in the background: when a query fails and IsConnError says the
// connection is gone, the program calls Invalidate(conn, err) and stops
// using conn; the supervisor closes it and reconnects. The supervisor also
// closes the connection when Run's context ends: stop using it first.
// It never re-sends a query.
func NewConn(o ConnOptions) (*supervisor.Supervisor[*pgx.Conn], error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	cfg, err := parseConn(o.DSN)
	if err != nil {
		return nil, err
	}
	if o.Configure != nil {
		o.Configure(cfg)
	}
	c := &connector{cfg: cfg, secrets: secretsOf(o.DSN, &cfg.Config)}
	return newSupervisor[*pgx.Conn](c, supervise(o.Options, "postgres", c.secrets, o.OnConnect))
}

// closeTimeout bounds closing one connection: the Terminate message, and
// pgconn's cleanup of a connection it closed on its own.
const closeTimeout = 2 * time.Second

// connector makes *pgx.Conn connections; its errors are scrubbed of the
// DSN's secrets before they leave it.
type connector struct {
	cfg     *pgx.ConnConfig
	secrets []string
}

func (c *connector) Connect(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, c.cfg)
	if err != nil {
		return nil, scrub(err, c.secrets)
	}
	return conn, nil
}

// Close closes conn and waits, up to closeTimeout, until pgconn has
// released everything it holds (a connection it closed itself after an
// error is cleaned up on a goroutine of its own).
func (c *connector) Close(conn *pgx.Conn) error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	err := conn.Close(ctx)
	select {
	case <-conn.PgConn().CleanupDone():
	case <-ctx.Done():
	}
	return scrub(err, c.secrets)
}
