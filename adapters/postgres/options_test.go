package postgres_test

import (
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

// sharedOptions are the options the three kinds have in common.
type sharedOptions struct {
	hint time.Duration
	sup  supervisor.Settings
}

// construct builds each of the three kinds from the same dsn and options.
var construct = map[string]func(dsn string, o sharedOptions) error{
	"conn": func(dsn string, o sharedOptions) error {
		_, err := postgres.NewConn(dsn, postgres.ConnOptions{TooManyConnectionsHint: o.hint, Supervisor: o.sup})
		return err
	},
	"listener": func(dsn string, o sharedOptions) error {
		_, err := postgres.NewListener(dsn, postgres.ListenerOptions{TooManyConnectionsHint: o.hint, Supervisor: o.sup})
		return err
	},
	"pool": func(dsn string, o sharedOptions) error {
		_, err := postgres.NewPool(dsn, postgres.PoolOptions{TooManyConnectionsHint: o.hint, Supervisor: o.sup})
		return err
	},
}

const emptyDSN = "postgres: dsn: empty (want postgres://user:password@host:5432/db or host=... user=... dbname=...)"

func TestConstructorsRejectBadOptionsNamingTheField(t *testing.T) {
	const dsn = "postgres://u:pw@127.0.0.1:1/db"
	for _, tc := range []struct {
		name   string
		dsn    string
		o      sharedOptions
		want   string
		secret string
	}{
		{"empty DSN", "", sharedOptions{}, emptyDSN, ""},
		{"blank DSN", " \t", sharedOptions{}, emptyDSN, ""},
		{"URL with a raw space and '@'", "postgres://u:s3cr3t zebra@Qx9@127.0.0.1/db", sharedOptions{},
			"postgres: dsn: malformed: failed to parse as URL (unexpected spaces found in password, use percent-encoded spaces (%20) instead)", "s3cr3t zebra@Qx9"},
		{"bad port", "postgres://u:Zk8pass@127.0.0.1:notaport/db", sharedOptions{}, "postgres: dsn: malformed: invalid port", "Zk8pass"},
		{"unterminated quote", "host=h password='Qv7 Zx9un", sharedOptions{},
			"postgres: dsn: malformed: failed to parse as keyword/value (unterminated quoted string in connection info string)", "Qv7 Zx9un"},
		{"stray word", "host=h password=Wq2secret junk", sharedOptions{}, "postgres: dsn: malformed: failed to parse as keyword/value (invalid keyword/value)", "Wq2secret"},
		{"password in the query", "postgres://u@127.0.0.1/db?password=Hy6s3cret&sslmode=bogus", sharedOptions{},
			"postgres: dsn: malformed: failed to configure TLS (sslmode is invalid)", "Hy6s3cret"},
		{"raw password read as another key's value", "host=h password=Kp4 target_session_attrs=Mz8secret", sharedOptions{},
			"postgres: dsn: malformed: unknown target_session_attrs value: xxxxx", "Kp4 target_session_attrs=Mz8secret"},
		{"a quote inside a quoted fragment", `postgres://u:Cq1Zk@%Cq2Zk"Cq3Zk@127.0.0.1/db`, sharedOptions{},
			"postgres: dsn: malformed: failed to parse as URL (invalid percent-encoded token: xxxxx", `Cq1Zk@%Cq2Zk"Cq3Zk`},
		{"stranded '@' in the query", "postgres://u:p@ss/Rt5wo?rd@host/db", sharedOptions{},
			"postgres: dsn: malformed: failed to parse as URL (missing key/value separator …)", "Rt5wo?rd"},
		{"negative hint", dsn, sharedOptions{hint: -time.Second}, "postgres: TooManyConnectionsHint -1s: negative", ""},
		{"negative Base", dsn, sharedOptions{sup: supervisor.Settings{Backoff: backoff.Config{Base: -1}}}, "postgres: Supervisor.Backoff.Base -1ns: negative", ""},
		{"negative ConnectTimeout", dsn, sharedOptions{sup: supervisor.Settings{ConnectTimeout: -time.Second}}, "postgres: Supervisor.ConnectTimeout -1s: negative", ""},
		{"negative StableAfter", dsn, sharedOptions{sup: supervisor.Settings{StableAfter: -1}}, "postgres: Supervisor.StableAfter -1ns: negative", ""},
		{"negative MaxAttempts", dsn, sharedOptions{sup: supervisor.Settings{MaxAttempts: -1}}, "postgres: Supervisor.MaxAttempts -1: negative", ""},
		{"negative MaxHint", dsn, sharedOptions{sup: supervisor.Settings{MaxHint: -1}}, "postgres: Supervisor.MaxHint -1ns: negative", ""},
	} {
		for kind, build := range construct {
			t.Run(tc.name+"/"+kind, func(t *testing.T) {
				var err error
				require.NotPanics(t, func() { err = build(tc.dsn, tc.o) })
				require.Error(t, err)
				assert.ErrorIs(t, err, supervisor.ErrInvalidOptions)
				assert.EqualError(t, err, tc.want)
				if tc.secret != "" {
					for _, part := range strings.FieldsFunc(tc.secret, func(r rune) bool { return strings.ContainsRune(" @?%\"=", r) }) {
						if part == "target_session_attrs" {
							continue // a key, named on purpose
						}
						assert.NotContains(t, err.Error(), part)
					}
					assert.False(t, holds(err, tc.secret), "the error holds the DSN")
				}
			})
		}
	}
}

func TestKindSpecificOptions(t *testing.T) {
	const dsn = "postgres://u:pw@127.0.0.1:1/db"
	listener := func(o postgres.ListenerOptions) func() error {
		return func() error { _, err := postgres.NewListener(dsn, o); return err }
	}
	pool := func(o postgres.PoolOptions) func() error {
		return func() error { _, err := postgres.NewPool(dsn, o); return err }
	}
	for _, tc := range []struct {
		name  string
		build func() error
		want  string
	}{
		{"negative Buffer", listener(postgres.ListenerOptions{Buffer: -1}), "postgres: Buffer -1: negative"},
		{"empty channel", listener(postgres.ListenerOptions{Channels: []string{"a", ""}}), "postgres: Channels[1]: empty"},
		{"first channel empty", listener(postgres.ListenerOptions{Channels: []string{""}}), "postgres: Channels[0]: empty"},
		{"NUL in channel", listener(postgres.ListenerOptions{Channels: []string{"a\x00b"}}), `postgres: Channels[0] "a\x00b": contains a NUL byte`},
		{"long channel", listener(postgres.ListenerOptions{Channels: []string{strings.Repeat("c", 64)}}),
			`postgres: Channels[0] "` + strings.Repeat("c", 64) + `": longer than 63 bytes (PostgreSQL's NAMEDATALEN)`},
		{"listener negative PingInterval", listener(postgres.ListenerOptions{PingInterval: -time.Second}), "postgres: PingInterval -1s: negative"},
		{"listener negative PingTimeout", listener(postgres.ListenerOptions{PingTimeout: -time.Millisecond}), "postgres: PingTimeout -1ms: negative"},
		{"listener Supervisor", listener(postgres.ListenerOptions{Supervisor: supervisor.Settings{ConnectTimeout: -time.Second}}), "postgres: Supervisor.ConnectTimeout -1s: negative"},
		{"negative PingInterval", pool(postgres.PoolOptions{PingInterval: -time.Second}), "postgres: PingInterval -1s: negative"},
		{"negative PingTimeout", pool(postgres.PoolOptions{PingTimeout: -time.Millisecond}), "postgres: PingTimeout -1ms: negative"},
		{"MaxConns 0", pool(postgres.PoolOptions{Configure: func(c *pgxpool.Config) { c.MaxConns = 0 }}),
			"postgres: Configure: left MaxConns 0, MinConns 0 (want 1 <= MaxConns, MinConns <= MaxConns)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.build()
			require.Error(t, err)
			assert.ErrorIs(t, err, supervisor.ErrInvalidOptions)
			assert.EqualError(t, err, tc.want)
		})
	}
}

func TestZeroOptionalFieldsAreDefaults(t *testing.T) {
	const dsn = "host=127.0.0.1 port=1 user=u password=pw dbname=db"
	c, err := postgres.NewConn(dsn, postgres.ConnOptions{}) // nil Configure, nil OnConnect
	require.NoError(t, err)
	assert.Equal(t, "postgres conn postgres://u@127.0.0.1:1/db", c.Name())
	l, err := postgres.NewListener(dsn, postgres.ListenerOptions{})
	require.NoError(t, err)
	assert.Equal(t, "postgres listener postgres://u@127.0.0.1:1/db", l.Name())
	assert.Equal(t, postgres.DefaultBuffer, postgres.BufferCap(l))
	assert.Empty(t, l.Channels())
	p, err := postgres.NewPool(dsn, postgres.PoolOptions{})
	require.NoError(t, err)
	assert.Equal(t, "postgres pool postgres://u@127.0.0.1:1/db", p.Name())
	p, err = postgres.NewPool(dsn, postgres.PoolOptions{Supervisor: supervisor.Settings{Name: "orders"}})
	require.NoError(t, err)
	assert.Equal(t, "orders", p.Name())
	c, err = postgres.NewConn(dsn, postgres.ConnOptions{Supervisor: supervisor.Settings{Name: "one"}})
	require.NoError(t, err)
	assert.Equal(t, "one", c.Name())
}

// TestDefaultNameIsTheRedactedTarget: the default Name of every kind is
// built from the parsed DSN, never with its password, after "postgres"
// and the kind, so that the three kinds on one DSN are told apart in
// logs, Status, metrics and the status page.
func TestDefaultNameIsTheRedactedTarget(t *testing.T) {
	for dsn, want := range map[string]string{
		"postgres://app:Zq9secret@db.internal:6432/orders?sslmode=disable":           "postgres://app@db.internal:6432/orders",
		"postgres://app:Zq9secret@h1:5432,h2:5433/db":                                "postgres://app@h1:5432,h2:5433/db",
		"host=h1,h2 port=5432,5433 user=app password=Zq9secret dbname=db":            "postgres://app@h1:5432,h2:5433/db",
		"host=h1 user=app password='Zq9 secret' dbname=db sslmode=prefer":            "postgres://app@h1:5432/db",
		"postgres://app:Zq9secret@[::1]:5432/db":                                     "postgres://app@[::1]:5432/db",
		"postgres://app@127.0.0.1/db?password=Zq9secret&sslmode=disable":             "postgres://app@127.0.0.1:5432/db",
		"postgres://Zq9secret:Zq9secret@127.0.0.1/db":                                "postgres://xxxxx@127.0.0.1:5432/db",
		"postgres://app:Zq9secret@127.0.0.1/db?application_name=x&connect_timeout=2": "postgres://app@127.0.0.1:5432/db",
		// pgx cuts the userinfo at the first '@': the rest of the password becomes the host.
		"postgres://app:Zq9a@Zq9b@Zq9c@127.0.0.1:5432/db": "postgres://app@xxxxx:5432/db",
	} {
		t.Run(dsn, func(t *testing.T) {
			c, err := postgres.NewConn(dsn, postgres.ConnOptions{})
			require.NoError(t, err)
			l, err := postgres.NewListener(dsn, postgres.ListenerOptions{})
			require.NoError(t, err)
			p, err := postgres.NewPool(dsn, postgres.PoolOptions{})
			require.NoError(t, err)
			for kind, r := range map[string]runner{"conn": c, "listener": l, "pool": p} {
				assert.Equal(t, "postgres "+kind+" "+want, r.Name())
				assert.Equal(t, r.Name(), r.Status().Name)
				assert.NotContains(t, r.Name(), "Zq9")
			}
		})
	}
}

func TestListenRejectsBadChannel(t *testing.T) {
	l, err := postgres.NewListener("postgres://u:pw@127.0.0.1:1/db", postgres.ListenerOptions{})
	require.NoError(t, err)
	assert.EqualError(t, l.Listen(t.Context(), ""), `postgres: listen: channel "": empty`)
	assert.EqualError(t, l.Listen(t.Context(), "a\x00b"), `postgres: listen: channel "a\x00b": contains a NUL byte`)
	assert.Empty(t, l.Channels())
}

// TestConstructorsCopyTheirOptions: changing the options after the
// constructor returned changes nothing.
func TestConstructorsCopyTheirOptions(t *testing.T) {
	channels := []string{"a", "b"}
	l, err := postgres.NewListener("postgres://u:pw@127.0.0.1:1/db", postgres.ListenerOptions{Channels: channels})
	require.NoError(t, err)
	channels[0] = "changed"
	assert.Equal(t, []string{"a", "b"}, l.Channels())
}
