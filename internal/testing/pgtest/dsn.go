package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Host is the address every cluster listens on.
const Host = "127.0.0.1"

// Port is the server's TCP port; it stays the same across restarts.
func (c *Cluster) Port() int { return c.port }

// Password is the superuser's password: the same for every cluster of
// the process.
func (c *Cluster) Password() string { return c.password }

// DSN returns a URL connection string for the superuser and the postgres
// database; params are added as query parameters (e.g. "application_name",
// "x"). It sets no sslmode: pgx's default (prefer) applies, as it does for
// a program whose DSN says nothing about TLS.
func (c *Cluster) DSN(params ...string) string {
	return c.URL(User, c.password, "postgres", params...)
}

// DSNVia is DSN through addr (a proxy in front of the cluster) instead of
// the cluster's own address.
func (c *Cluster) DSNVia(addr string, params ...string) string {
	return dsnAt(addr, User, c.password, "postgres", params)
}

// Addr is the cluster's host:port, what a proxy in front of it dials.
func (c *Cluster) Addr() string { return fmt.Sprintf("%s:%d", Host, c.port) }

// URL returns a URL connection string with the given credentials and
// database.
func (c *Cluster) URL(user, password, db string, params ...string) string {
	return dsnAt(c.Addr(), user, password, db, params)
}

func dsnAt(addr, user, password, db string, params []string) string {
	q := url.Values{}
	for i := 0; i+1 < len(params); i += 2 {
		q.Set(params[i], params[i+1])
	}
	u := url.URL{Scheme: "postgres", User: url.UserPassword(user, password), Host: addr, Path: "/" + db, RawQuery: q.Encode()}
	return u.String()
}

// Connect opens a superuser connection for the test's own use (sending
// NOTIFY, terminating backends); it is closed when t ends.
func (c *Cluster) Connect(t testing.TB) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.DSN("application_name", "pgtest"))
	if err != nil {
		t.Fatalf("pgtest: connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}
