package postgres_test

import (
	"errors"
	"fmt"
	"strings"
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

// badPassword has what defeats best-effort redaction: a space, '@',
// quotes, '%', a backslash and non-ASCII letters.
const badPassword = `Wr0ng p@ss'w%rd "ü\x`

// kinds builds each supervised kind on dsn with supervisor settings o, as
// a runner.
var kinds = hintedKinds(0)

// hintedKinds is kinds with TooManyConnectionsHint set to hint (0: its
// default).
func hintedKinds(hint time.Duration) map[string]func(t *testing.T, dsn string, o supervisor.Settings) runner {
	return map[string]func(t *testing.T, dsn string, o supervisor.Settings) runner{
		"conn": func(t *testing.T, dsn string, o supervisor.Settings) runner {
			s, err := postgres.NewConn(dsn, postgres.ConnOptions{TooManyConnectionsHint: hint, Supervisor: o})
			require.NoError(t, err)
			return s
		},
		"listener": func(t *testing.T, dsn string, o supervisor.Settings) runner {
			l, err := postgres.NewListener(dsn, postgres.ListenerOptions{Channels: []string{"x"}, TooManyConnectionsHint: hint, Supervisor: o})
			require.NoError(t, err)
			return l
		},
		"pool": func(t *testing.T, dsn string, o supervisor.Settings) runner {
			p, err := postgres.NewPool(dsn, postgres.PoolOptions{TooManyConnectionsHint: hint, Supervisor: o})
			require.NoError(t, err)
			return p
		},
	}
}

// keyValueDSN writes a key=value DSN with password quoted and escaped.
func keyValueDSN(c *pgtest.Cluster, password, db string) string {
	q := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(password)
	return fmt.Sprintf("host=%s port=%d user=%s password='%s' dbname=%s", pgtest.Host, c.Port(), pgtest.User, q, db)
}

// failsOnce runs r until it gives up and checks it took one attempt and
// answered errors.As with the server's SQLSTATE. It returns the Status and
// Run's error.
func failsOnce(t *testing.T, r runner, code string) (health.Status, error) {
	t.Helper()
	stop := testkit.Run(t, r)
	st := testkit.WaitStatus(t, r, 10*time.Second, "failed", testkit.InState(health.Failed))
	err := stop()
	require.ErrorIs(t, err, supervisor.ErrFailed)
	<-r.Done()
	assert.Equal(t, err, r.Err(), "Err is what Run returned")
	assert.Equal(t, 1, st.ConsecutiveFailures, "attempts before Failed")
	assert.Zero(t, st.Connects)
	var pg *pgconn.PgError
	if assert.ErrorAs(t, st.Err, &pg) {
		assert.Equal(t, code, pg.Code)
	}
	assert.ErrorAs(t, err, &pg, "Run's error answers errors.As too")
	return st, err
}

func TestWrongPasswordFailsAtOnceAndNeverShowsIt(t *testing.T) {
	forms := map[string]string{
		"url":       shared.URL(pgtest.User, badPassword, "postgres"),
		"key=value": keyValueDSN(shared, badPassword, "postgres"),
	}
	for form, dsn := range forms {
		for kind, build := range kinds {
			t.Run(form+"/"+kind, func(t *testing.T) {
				var logs testkit.Buffer
				r := build(t, dsn, supervisor.Settings{Backoff: fast, Logger: jsonLogger(&logs)})
				st, runErr := failsOnce(t, r, "28P01")

				var ce *pgconn.ConnectError
				assert.False(t, errors.As(st.Err, &ce), "Status.Err still holds a *pgconn.ConnectError (and its Config)")
				assert.False(t, errors.As(runErr, &ce), "Run's error still holds a *pgconn.ConnectError")
				assert.False(t, holds(st.Err, badPassword), "the password is reachable from Status.Err")
				assert.False(t, holds(runErr, badPassword), "the password is reachable from Run's error")

				body := readyBody(r)
				require.Contains(t, body, "28P01", "the verbose body shows the error")
				for name, text := range map[string]string{
					"Status.Err": st.Err.Error(), "Status.Err %+v": fmt.Sprintf("%+v", st.Err), "Status %#v": fmt.Sprintf("%#v", st),
					"Run error": runErr.Error(), "slog": logs.String(), "readiness": body, "Name": r.Name(),
				} {
					for _, part := range []string{badPassword, "Wr0ng", "w%rd", `"ü`} {
						assert.NotContains(t, text, part, "%s shows the password", name)
					}
				}
				assert.Contains(t, logs.String(), "gave up", "the log was captured")
			})
		}
	}
}

func TestMissingDatabaseFailsAtOnce(t *testing.T) {
	for kind, build := range kinds {
		t.Run(kind, func(t *testing.T) {
			r := build(t, shared.URL(pgtest.User, shared.Password(), "no_such_db"), supervisor.Settings{Backoff: fast})
			st, _ := failsOnce(t, r, "3D000")
			assert.Contains(t, st.Err.Error(), "no_such_db")
			assert.NotContains(t, st.Err.Error(), shared.Password())
		})
	}
}
