package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/pgtest"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// sslModes are the sslmode values of the matrix; "" leaves it to pgx's
// default (prefer), as a DSN that says nothing about TLS does.
var sslModes = []string{"", "disable", "allow", "prefer", "require"}

// answers are the server answers of the matrix, in the table's order.
var answerNames = []string{"28P01", "3D000", "28000", "refused", "53300"}

// outcome is what one kind did with one answer: it gave up at its first
// attempt, or it waits to retry, with the 53300 hint or the backoff.
type outcome struct {
	state   health.State
	attempt int
	hinted  bool
	took    time.Duration // from Run to that state
}

func (o outcome) String() string {
	switch {
	case o.state == health.Failed:
		return fmt.Sprintf("Failed at %d (%v)", o.attempt, o.took.Round(time.Millisecond))
	case o.hinted:
		return "retry, hint"
	}
	return "retry"
}

// TestSSLModeMatrix runs every kind against real clusters, one serving
// TLS with a certificate made by the test and one without, for every
// sslmode, and each answer a login can get: a wrong password (28P01), a
// missing database (3D000), a login pg_hba.conf rejects (28000), nothing
// listening (refused), a role at its connection limit (53300). The TLS
// try that sslmode=prefer and allow make inside one answer is not an
// answer: 28P01, 3D000 and 28000 end every kind at its first attempt,
// whatever the sslmode, except require against a server without TLS,
// whose answer is that refusal (retried: the server may be reconfigured,
// and the credentials were never checked). Refused is retried with the
// backoff, 53300 with its hint. The table is logged.
func TestSSLModeMatrix(t *testing.T) {
	t.Parallel()
	tlsOn := pgtest.Start(t, pgtest.Options{TLS: true, HBA: []string{"host rejected all 127.0.0.1/32 reject"}})
	servers := []struct {
		name string
		c    *pgtest.Cluster
		tls  bool
	}{{"TLS off", rejecting, false}, {"TLS on", tlsOn, true}}
	const hint = 3 * time.Second
	var mu sync.Mutex
	got := map[string]outcome{}
	t.Cleanup(func() { t.Log("\n" + matrixTable(got)) })
	for _, srv := range servers {
		role, pw := limitedRole(t, srv.c)
		dsns := map[string]string{
			"28P01":   srv.c.URL(pgtest.User, "wrong-"+srv.c.Password(), "postgres"),
			"3D000":   srv.c.URL(pgtest.User, srv.c.Password(), "no_such_db"),
			"28000":   srv.c.URL(pgtest.User, srv.c.Password(), "rejected"),
			"refused": "postgres://" + pgtest.User + ":" + srv.c.Password() + "@127.0.0.1:1/postgres", // nothing listens on port 1
			"53300":   srv.c.URL(role, pw, "postgres"),
		}
		for _, mode := range sslModes {
			for _, answer := range answerNames {
				dsn := withSSLMode(t, dsns[answer], mode)
				refusedTLS := mode == "require" && !srv.tls && answer != "refused"
				for kind, build := range hintedKinds(hint) {
					name := fmt.Sprintf("%s/%s/%s/%s", modeName(mode), srv.name, answer, kind)
					t.Run(name, func(t *testing.T) {
						t.Parallel()
						r := build(t, dsn, supervisor.Settings{Backoff: fast})
						o := firstOutcome(t, r)
						mu.Lock()
						got[name] = o
						mu.Unlock()
						st := r.Status()
						switch {
						case refusedTLS:
							assert.Equal(t, health.Backoff, o.state, "%v", st.Err)
							assert.ErrorContains(t, st.Err, "server refused TLS connection")
							assert.False(t, o.hinted)
						case answer == "refused":
							assert.Equal(t, health.Backoff, o.state, "%v", st.Err)
							assert.False(t, o.hinted)
						case answer == "53300":
							assert.Equal(t, health.Backoff, o.state, "%v", st.Err)
							assert.True(t, o.hinted, "the 53300 hint: planned %v", st.NextAttempt.Sub(st.Since))
						default:
							require.Equal(t, health.Failed, o.state, "%s was retried: %v", answer, st.Err)
							assert.Equal(t, 1, o.attempt)
							var pg *pgconn.PgError
							if assert.ErrorAs(t, st.Err, &pg, "errors.As finds the answer") {
								assert.Equal(t, answer, pg.Code, "errors.As finds the real answer first: %v", st.Err)
							}
						}
						if !srv.tls && (mode == "" || mode == "prefer") && answer != "refused" {
							// The step stays in the text: nothing is hidden.
							assert.ErrorContains(t, st.Err, "server refused TLS connection", "the TLS try is in the text")
						}
					})
				}
			}
		}
	}
}

// firstOutcome runs r until its first attempt has failed: Failed, or
// Backoff, whose planned wait tells the hint (longer than fast's Cap).
func firstOutcome(t *testing.T, r runner) outcome {
	t.Helper()
	began := time.Now()
	stop := testkit.Run(t, r)
	st := testkit.WaitStatus(t, r, 20*time.Second, "the first attempt's end", func(st health.Status) bool {
		return st.State == health.Failed || st.State == health.Backoff && st.ConsecutiveFailures >= 1
	})
	o := outcome{state: st.State, attempt: st.ConsecutiveFailures, took: st.Since.Sub(began),
		hinted: st.State == health.Backoff && st.NextAttempt.Sub(st.Since) > fast.Cap}
	err := stop()
	if st.State == health.Failed {
		assert.ErrorIs(t, err, supervisor.ErrFailed)
	}
	return o
}

// limitedRole creates a role whose connection limit is 0 on c (its logins
// are refused with 53300) and drops it when t ends.
func limitedRole(t *testing.T, c *pgtest.Cluster) (role, password string) {
	t.Helper()
	role, password = uniqueRole(t, "full", c)
	_, err := c.Connect(t).Exec(t.Context(), "ALTER ROLE "+role+" CONNECTION LIMIT 0")
	require.NoError(t, err)
	return role, password
}

// withSSLMode returns dsn with sslmode set to mode ("" leaves it unset).
func withSSLMode(t *testing.T, dsn, mode string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	require.NoError(t, err)
	q := u.Query()
	q.Del("sslmode")
	if mode != "" {
		q.Set("sslmode", mode)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

func modeName(mode string) string {
	if mode == "" {
		return "unset"
	}
	return mode
}

// matrixTable writes the outcomes as a markdown table: a row per sslmode,
// server and answer, a column per kind.
func matrixTable(got map[string]outcome) string {
	var b strings.Builder
	b.WriteString("| sslmode | server | answer | Conn | Listener | Pool |\n|---|---|---|---|---|---|\n")
	for _, mode := range sslModes {
		for _, srv := range []string{"TLS off", "TLS on"} {
			for _, answer := range answerNames {
				row := []string{modeName(mode), srv, answer}
				for _, kind := range []string{"conn", "listener", "pool"} {
					o, ok := got[fmt.Sprintf("%s/%s/%s/%s", modeName(mode), srv, answer, kind)]
					cell := "—"
					if ok {
						cell = o.String()
					}
					row = append(row, cell)
				}
				b.WriteString("| " + strings.Join(row, " | ") + " |\n")
			}
		}
	}
	return b.String()
}

// TestWrongPasswordFailsWithPgxDefaults: a DSN that says nothing about
// sslmode (pgx's prefer) and a wrong password, against a server without
// TLS, with the supervisor's own defaults: every kind goes Failed at its
// first attempt. The time from Run to Failed is logged.
func TestWrongPasswordFailsWithPgxDefaults(t *testing.T) {
	t.Parallel()
	dsn := shared.URL(pgtest.User, "wrong-"+shared.Password(), "postgres")
	require.NotContains(t, dsn, "sslmode")
	for kind, build := range kinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			r := build(t, dsn, supervisor.Settings{})
			began := time.Now()
			stop := testkit.Run(t, r)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			ch, unsub := r.Subscribe()
			defer unsub()
			var st health.Status
		wait:
			for {
				select {
				case s, ok := <-ch:
					if !ok {
						break wait
					}
					st = s
				case <-ctx.Done():
					st = r.Status()
					break wait
				}
			}
			took := time.Since(began)
			t.Logf("%s: %s at attempt %d after %v", kind, st.State, st.ConsecutiveFailures, took.Round(time.Millisecond))
			require.Equal(t, health.Failed, st.State, "a wrong password was retried: %v", st.Err)
			assert.Equal(t, 1, st.ConsecutiveFailures)
			var pg *pgconn.PgError
			require.ErrorAs(t, st.Err, &pg)
			assert.Equal(t, "28P01", pg.Code)
			assert.True(t, errors.Is(stop(), supervisor.ErrFailed))
			assert.True(t, backoff.IsPermanent(postgres.Classify(st.Err)), "Classify of the Status error")
		})
	}
}
