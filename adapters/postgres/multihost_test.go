package postgres_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/pgtest"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// multiHostDSN is a URL DSN for the superuser with password, database db
// and the hosts (host:port) in order.
func multiHostDSN(password, db string, hosts ...string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(pgtest.User, password), Host: strings.Join(hosts, ","),
		Path: "/" + db}
	return u.String()
}

// attempts returns the failed attempts in h: the transitions into
// Backoff or Failed after an attempt (not after a loss), in order.
func attempts(h []health.Transition) []health.Transition {
	var out []health.Transition
	for _, tr := range h {
		if tr.From == health.Connecting && (tr.To == health.Backoff || tr.To == health.Failed) {
			out = append(out, tr)
		}
	}
	return out
}

// TestMultiHostGivesUpOnlyWhenEveryHostSaysSo gives every kind a DSN with
// two hosts, each of them an endpoint that one attempt dials alone.
//
// Refused and 28000: the first refuses connections (nothing listens: a
// primary restarting), the second answers 28000 (its pg_hba.conf rejects
// the login: a standby without the entry). Not every host said the login
// is wrong, so every kind keeps retrying, round after round, and each
// attempt's error is its own host's answer only, named by the endpoint.
//
// 3D000 and 28000: both hosts say no for good, each in its own way (the
// first has no such database, the second rejects the login): every kind
// gives up, but only after both answered, on its second attempt, not on
// the first "no".
//
// A host listed twice in a row is one endpoint: 28000 there fails at
// once.
func TestMultiHostGivesUpOnlyWhenEveryHostSaysSo(t *testing.T) {
	t.Parallel()
	c := rejecting
	const refused = "127.0.0.1:1" // nothing listens on port 1
	for kind, build := range kinds {
		t.Run("refused and 28000/"+kind, func(t *testing.T) {
			r := build(t, multiHostDSN(c.Password(), "rejected", refused, c.Addr()), supervisor.Settings{Backoff: fast})
			testkit.Run(t, r)
			st := testkit.WaitStatus(t, r, 10*time.Second, "a fourth attempt", func(st health.Status) bool {
				return st.State == health.Failed || st.State == health.Backoff && st.ConsecutiveFailures >= 4
			})
			require.Equal(t, health.Backoff, st.State, "gave up although one host only refused the connection: %v", st.Err)
			tried := attempts(r.History())
			require.GreaterOrEqual(t, len(tried), 4)
			for i, tr := range tried[:4] {
				var pg *pgconn.PgError
				if i%2 == 0 {
					assert.Equal(t, refused, tr.Endpoint, "attempt %d", i+1)
					assert.ErrorIs(t, tr.Err, syscall.ECONNREFUSED, "the first host's answer")
					assert.False(t, errors.As(tr.Err, &pg), "the first host's attempt holds another's answer: %v", tr.Err)
					assert.NotContains(t, tr.Err.Error(), c.Addr(), "the first host's attempt dialed the second")
				} else {
					assert.Equal(t, c.Addr(), tr.Endpoint, "attempt %d", i+1)
					if assert.ErrorAs(t, tr.Err, &pg, "the second host's answer: %v", tr.Err) {
						assert.Equal(t, "28000", pg.Code)
					}
					assert.NotErrorIs(t, tr.Err, syscall.ECONNREFUSED, "the second host's attempt dialed the first")
					assert.Contains(t, tr.Err.Error(), c.Addr())
				}
				assert.NotContains(t, tr.Err.Error(), c.Password())
				assert.False(t, holds(tr.Err, c.Password()), "the password is reachable from the history")
			}
			assert.Equal(t, "failover", tried[0].Reason, "the second host is tried at once")
			assert.Equal(t, "backoff", tried[1].Reason, "the backoff waits once per round")
			assert.False(t, holds(st.Err, c.Password()), "the password is reachable from Status.Err")
		})
		t.Run("3D000 and 28000/"+kind, func(t *testing.T) {
			r := build(t, multiHostDSN(shared.Password(), "rejected", shared.Addr(), c.Addr()), supervisor.Settings{Backoff: fast})
			st, err := failsAfterEveryHost(t, r, map[string]string{shared.Addr(): "3D000", c.Addr(): "28000"}, shared.Addr(), c.Addr())
			assert.Equal(t, c.Addr(), st.Endpoint, "the last host's answer ends it")
			assert.NotContains(t, err.Error(), shared.Password())
		})
		t.Run("28000 twice/"+kind, func(t *testing.T) {
			failsOnce(t, build(t, multiHostDSN(c.Password(), "rejected", c.Addr(), c.Addr()), supervisor.Settings{Backoff: fast}), "28000")
		})
	}
}

// failsAfterEveryHost runs r until it gives up and checks that it took
// one attempt per host, in order, each failing with that host's SQLSTATE
// (codes, by endpoint), the first ones as retryable failovers. It returns
// the final Status and Run's error.
func failsAfterEveryHost(t *testing.T, r runner, codes map[string]string, hosts ...string) (health.Status, error) {
	t.Helper()
	stop := testkit.Run(t, r)
	st := testkit.WaitStatus(t, r, 10*time.Second, "failed", testkit.InState(health.Failed))
	err := stop()
	require.ErrorIs(t, err, supervisor.ErrFailed)
	assert.Equal(t, len(hosts), st.ConsecutiveFailures, "attempts before Failed: one per host")
	tried := attempts(r.History())
	require.Len(t, tried, len(hosts))
	for i, tr := range tried {
		assert.Equal(t, hosts[i], tr.Endpoint, "attempt %d", i+1)
		var pg *pgconn.PgError
		if assert.ErrorAs(t, tr.Err, &pg, "attempt %d", i+1) {
			assert.Equal(t, codes[hosts[i]], pg.Code, "attempt %d on %s", i+1, hosts[i])
		}
		if i < len(tried)-1 {
			assert.Equal(t, health.Backoff, tr.To, "attempt %d: other hosts have not answered yet", i+1)
			assert.Equal(t, "failover", tr.Reason)
		} else {
			assert.Equal(t, health.Failed, tr.To)
		}
	}
	var pg *pgconn.PgError
	assert.ErrorAs(t, err, &pg, "Run's error answers errors.As")
	return st, err
}

// TestMultiHostWithBeforeConnectGivesUpOnlyOn3D000: with BeforeConnect
// set, a refused login may succeed with the next credentials, so 3D000
// from one host next to 28000 from the other is retried round after
// round; 3D000 from both ends it, once both answered.
func TestMultiHostWithBeforeConnectGivesUpOnlyOn3D000(t *testing.T) {
	t.Parallel()
	c := rejecting
	hook := func(context.Context, *pgconn.Config) error { return nil } // keeps the DSN's password: a hook that could rotate it
	build := func(dsn string) runner {
		s, err := postgres.NewConn(dsn, postgres.ConnOptions{BeforeConnect: hook, Supervisor: supervisor.Settings{Backoff: fast}})
		require.NoError(t, err)
		return s
	}
	t.Run("3D000 and 28000", func(t *testing.T) {
		r := build(multiHostDSN(shared.Password(), "rejected", shared.Addr(), c.Addr()))
		testkit.Run(t, r)
		st := testkit.WaitStatus(t, r, 10*time.Second, "a fourth attempt", func(st health.Status) bool {
			return st.State == health.Failed || st.State == health.Backoff && st.ConsecutiveFailures >= 4
		})
		require.Equal(t, health.Backoff, st.State, "gave up on a refused login although BeforeConnect is set: %v", st.Err)
	})
	t.Run("3D000 twice", func(t *testing.T) {
		role, pw := uniqueRole(t, "hook_3d000", shared, c)
		dsn := "host=127.0.0.1,127.0.0.1 port=" + port(shared) + "," + port(c) + " user=" + role + " password=" + pw + " dbname=nothere"
		failsAfterEveryHost(t, build(dsn), map[string]string{shared.Addr(): "3D000", c.Addr(): "3D000"}, shared.Addr(), c.Addr())
	})
}
