package postgres_test

import (
	"fmt"
	"net/url"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/pgtest"
	"github.com/redial-go/redial/internal/testkit"
	"github.com/redial-go/redial/supervisor"
)

// TestMultiHostGivesUpOnlyWhenEveryHostSaysSo gives every kind a DSN with
// two hosts: the first refuses connections (nothing listens: a primary
// restarting), the second answers 28000 (its pg_hba.conf rejects the
// login: a standby without the entry). Not every host said the login is
// wrong, so every kind keeps retrying, and its error still says what each
// host answered. When both hosts answer 28000, it gives up at once.
func TestMultiHostGivesUpOnlyWhenEveryHostSaysSo(t *testing.T) {
	t.Parallel()
	c := pgtest.Start(t, pgtest.Options{HBA: []string{"host rejected all 127.0.0.1/32 reject"}})
	dsn := func(hosts ...string) string {
		u := url.URL{Scheme: "postgres", User: url.UserPassword(pgtest.User, c.Password()), Path: "/rejected", RawQuery: "sslmode=disable"}
		u.Host = hosts[0]
		for _, h := range hosts[1:] {
			u.Host += "," + h
		}
		return u.String()
	}
	const refused = "127.0.0.1:1" // nothing listens on port 1
	for kind, build := range kinds {
		t.Run("refused and 28000/"+kind, func(t *testing.T) {
			r := build(t, dsn(refused, c.Addr()), supervisor.Settings{Backoff: fast})
			start(t, r)
			st := testkit.WaitStatus(t, r, 10*time.Second, "a third attempt", func(st health.Status) bool {
				return st.State == health.Failed || st.State == health.Backoff && st.Attempt >= 3
			})
			require.Equal(t, health.Backoff, st.State, "gave up although one host only refused the connection: %v", st.Err)
			var pg *pgconn.PgError
			if assert.ErrorAs(t, st.Err, &pg, "the second host's answer: %v", st.Err) {
				assert.Equal(t, "28000", pg.Code)
			}
			assert.ErrorIs(t, st.Err, syscall.ECONNREFUSED, "the first host's answer")
			assert.Contains(t, st.Err.Error(), fmt.Sprintf("%s:%d", pgtest.Host, c.Port()))
			assert.NotContains(t, st.Err.Error(), c.Password())
			assert.False(t, holds(st.Err, c.Password()), "the password is reachable from Status.Err")
		})
		t.Run("28000 twice/"+kind, func(t *testing.T) {
			failsOnce(t, build(t, dsn(c.Addr(), c.Addr()), supervisor.Settings{Backoff: fast}), "28000")
		})
	}
}
