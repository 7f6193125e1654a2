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
)

// construct builds each of the three kinds from the same Options.
var construct = map[string]func(postgres.Options) error{
	"conn": func(o postgres.Options) error {
		_, err := postgres.NewConn(postgres.ConnOptions{Options: o})
		return err
	},
	"listener": func(o postgres.Options) error {
		_, err := postgres.NewListener(postgres.ListenerOptions{Options: o})
		return err
	},
	"pool": func(o postgres.Options) error {
		_, err := postgres.NewPool(postgres.PoolOptions{Options: o})
		return err
	},
}

func TestConstructorsRejectBadOptionsNamingTheField(t *testing.T) {
	const dsn = "postgres://u:pw@127.0.0.1:1/db"
	for _, tc := range []struct {
		name   string
		o      postgres.Options
		want   string
		secret string
	}{
		{"empty DSN", postgres.Options{}, "DSN is empty", ""},
		{"blank DSN", postgres.Options{DSN: " \t"}, "DSN is empty", ""},
		{"URL with a raw space and '@'", postgres.Options{DSN: "postgres://u:s3cr3t zebra@Qx9@127.0.0.1/db"}, "DSN is malformed", "s3cr3t zebra@Qx9"},
		{"bad port", postgres.Options{DSN: "postgres://u:Zk8pass@127.0.0.1:notaport/db"}, "DSN is malformed", "Zk8pass"},
		{"unterminated quote", postgres.Options{DSN: "host=h password='Qv7 Zx9un"}, "DSN is malformed", "Qv7 Zx9un"},
		{"stray word", postgres.Options{DSN: "host=h password=Wq2secret junk"}, "DSN is malformed", "Wq2secret"},
		{"password in the query", postgres.Options{DSN: "postgres://u@127.0.0.1/db?password=Hy6s3cret&sslmode=bogus"}, "DSN is malformed", "Hy6s3cret"},
		{"raw password read as another key's value", postgres.Options{DSN: "host=h password=Kp4 target_session_attrs=Mz8secret"}, "target_session_attrs", "Kp4 target_session_attrs=Mz8secret"},
		{"a quote inside a quoted fragment", postgres.Options{DSN: `postgres://u:Cq1Zk@%Cq2Zk"Cq3Zk@127.0.0.1/db`}, "DSN is malformed", `Cq1Zk@%Cq2Zk"Cq3Zk`},
		{"stranded '@' in the query", postgres.Options{DSN: "postgres://u:p@ss/Rt5wo?rd@host/db"}, "DSN is malformed", "Rt5wo?rd"},
		{"negative hint", postgres.Options{DSN: dsn, TooManyConnectionsHint: -time.Second}, "TooManyConnectionsHint -1s is negative", ""},
		{"negative Base", postgres.Options{DSN: dsn, Backoff: backoff.Config{Base: -1}}, "Base", ""},
		{"negative ConnectTimeout", postgres.Options{DSN: dsn, ConnectTimeout: -1}, "ConnectTimeout", ""},
		{"negative StableAfter", postgres.Options{DSN: dsn, StableAfter: -1}, "StableAfter", ""},
		{"negative MaxAttempts", postgres.Options{DSN: dsn, MaxAttempts: -1}, "MaxAttempts", ""},
		{"negative MaxHint", postgres.Options{DSN: dsn, MaxHint: -1}, "MaxHint", ""},
	} {
		for kind, build := range construct {
			t.Run(tc.name+"/"+kind, func(t *testing.T) {
				var err error
				require.NotPanics(t, func() { err = build(tc.o) })
				require.Error(t, err)
				assert.ErrorIs(t, err, postgres.ErrInvalidOptions)
				assert.Contains(t, err.Error(), tc.want)
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
	o := postgres.Options{DSN: dsn}
	for _, tc := range []struct {
		name  string
		build func() error
		want  string
	}{
		{"negative Buffer", func() error {
			_, err := postgres.NewListener(postgres.ListenerOptions{Options: o, Buffer: -1})
			return err
		}, "Buffer -1 is negative"},
		{"empty channel", func() error {
			_, err := postgres.NewListener(postgres.ListenerOptions{Options: o, Channels: []string{"a", ""}})
			return err
		}, "Channels[1] is empty"},
		{"NUL in channel", func() error {
			_, err := postgres.NewListener(postgres.ListenerOptions{Options: o, Channels: []string{"a\x00b"}})
			return err
		}, "Channels[0] \"a\\x00b\" contains a NUL byte"},
		{"long channel", func() error {
			_, err := postgres.NewListener(postgres.ListenerOptions{Options: o, Channels: []string{strings.Repeat("c", 64)}})
			return err
		}, "longer than 63 bytes"},
		{"negative PingInterval", func() error {
			_, err := postgres.NewPool(postgres.PoolOptions{Options: o, PingInterval: -time.Second})
			return err
		}, "PingInterval -1s is negative"},
		{"negative PingTimeout", func() error {
			_, err := postgres.NewPool(postgres.PoolOptions{Options: o, PingTimeout: -time.Millisecond})
			return err
		}, "PingTimeout -1ms is negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.build()
			require.Error(t, err)
			assert.ErrorIs(t, err, postgres.ErrInvalidOptions)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestZeroOptionalFieldsAreDefaults(t *testing.T) {
	o := postgres.Options{DSN: "host=127.0.0.1 port=1 user=u password=pw dbname=db"}
	c, err := postgres.NewConn(postgres.ConnOptions{Options: o}) // nil Configure, nil OnConnect
	require.NoError(t, err)
	assert.Equal(t, "postgres", c.Name())
	l, err := postgres.NewListener(postgres.ListenerOptions{Options: o})
	require.NoError(t, err)
	assert.Equal(t, "postgres-listener", l.Name())
	assert.Equal(t, postgres.DefaultBuffer, cap(l.Events()))
	assert.Empty(t, l.Channels())
	p, err := postgres.NewPool(postgres.PoolOptions{Options: o})
	require.NoError(t, err)
	assert.Equal(t, "postgres-pool", p.Name())
	o.Name = "orders"
	p, err = postgres.NewPool(postgres.PoolOptions{Options: o})
	require.NoError(t, err)
	assert.Equal(t, "orders", p.Name())
}

func TestListenRejectsBadChannel(t *testing.T) {
	l, err := postgres.NewListener(postgres.ListenerOptions{Options: postgres.Options{DSN: "postgres://u:pw@127.0.0.1:1/db"}})
	require.NoError(t, err)
	err = l.Listen(t.Context(), "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "channel is empty")
}

func TestPoolConfigureIsChecked(t *testing.T) {
	_, err := postgres.NewPool(postgres.PoolOptions{
		Options:   postgres.Options{DSN: "postgres://u:pw@127.0.0.1:1/db"},
		Configure: func(c *pgxpool.Config) { c.MaxConns = 0 },
	})
	require.Error(t, err)
	assert.ErrorIs(t, err, postgres.ErrInvalidOptions)
	assert.Contains(t, err.Error(), "MaxConns 0")
}
