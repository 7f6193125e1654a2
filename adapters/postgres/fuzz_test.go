package postgres_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/pgtest"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// canaries are woven into every fuzzed password, between and around the
// fuzzed parts, so that a leak of any fragment of the password (pgx's
// redaction can leak what follows a space or an '@') shows.
var canaries = [3]string{"Cq1Zk", "Cq2Zk", "Cq3Zk"}

// dsnForms writes a DSN for the shared cluster with password pw in one of
// several shapes, well formed or not.
var dsnForms = []func(pw string) string{
	func(pw string) string { return shared.URL(pgtest.User, pw, "postgres") }, // URL, percent-encoded
	func(pw string) string { // URL, raw: may be malformed
		return fmt.Sprintf("postgres://%s:%s@%s:%d/postgres?sslmode=disable", pgtest.User, pw, pgtest.Host, shared.Port())
	},
	func(pw string) string { return keyValueDSN(shared, pw, "postgres") }, // key=value, quoted and escaped
	func(pw string) string { // key=value, raw: may be malformed
		return fmt.Sprintf("host=%s port=%d user=%s password=%s dbname=postgres sslmode=disable", pgtest.Host, shared.Port(), pgtest.User, pw)
	},
	func(pw string) string { // URL, password as a query parameter
		return fmt.Sprintf("postgres://%s@%s:%d/postgres?sslmode=disable&password=%s", pgtest.User, pgtest.Host, shared.Port(), url.QueryEscape(pw))
	},
	func(pw string) string { // URL, raw query parameter
		return fmt.Sprintf("postgres://%s@%s:%d/postgres?password=%s&sslmode=disable", pgtest.User, pgtest.Host, shared.Port(), pw)
	},
}

// FuzzRedactDSN builds DSNs of every shape around a fuzzed password and
// checks that no fragment of it reaches a constructor's error or, when
// the DSN is well formed, the Status, Run's error, the log or the
// readiness body after a real (refused) login. Its seed corpus is in
// testdata/fuzz/FuzzRedactDSN, so plain go test runs it.
func FuzzRedactDSN(f *testing.F) {
	f.Fuzz(func(t *testing.T, form byte, mid1, mid2 string) {
		if strings.ContainsRune(mid1+mid2, 0) {
			t.Skip("a PostgreSQL password cannot hold NUL")
		}
		pw := canaries[0] + mid1 + canaries[1] + mid2 + canaries[2]
		dsn := dsnForms[int(form)%len(dsnForms)](pw)
		check := func(what, text string) {
			t.Helper()
			for _, c := range canaries {
				if strings.Contains(text, c) {
					t.Fatalf("%s shows part of the password %q (%s):\n%s", what, pw, c, text)
				}
			}
		}
		checkErr := func(what string, err error) {
			t.Helper()
			check(what, err.Error())
			check(what+" (%+v)", fmt.Sprintf("%+v", err))
			for _, c := range canaries {
				if holds(err, c) {
					t.Fatalf("%s holds part of the password %q (%s) in a field", what, pw, c)
				}
			}
		}

		var logs testkit.Buffer
		o := supervisor.Settings{Backoff: fast, MaxAttempts: 1, ConnectTimeout: 3 * time.Second, Logger: jsonLogger(&logs)}
		if p, err := postgres.NewPool(dsn, postgres.PoolOptions{Supervisor: o}); err != nil {
			checkErr("NewPool's error", err)
		} else {
			check("NewPool's Name", p.Name())
		}
		if l, err := postgres.NewListener(dsn, postgres.ListenerOptions{Supervisor: o}); err != nil {
			checkErr("NewListener's error", err)
		} else {
			check("NewListener's Name", l.Name())
		}
		s, err := postgres.NewConn(dsn, postgres.ConnOptions{Supervisor: o})
		if err != nil {
			checkErr("NewConn's error", err)
			return
		}
		check("NewConn's Name", s.Name())
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			t.Fatalf("NewConn accepted a DSN pgx refuses: %v", err)
		}
		if cfg.Password != pw || cfg.Host != pgtest.Host || int(cfg.Port) != shared.Port() || cfg.User != pgtest.User || cfg.Database != "postgres" {
			return // pgx read the malformed DSN another way: which text is "the password" is ambiguous
		}
		stop := testkit.Run(t, s)
		st := testkit.WaitStatus(t, s, 10*time.Second, "failed", testkit.InState(health.Failed))
		runErr := stop()
		if runErr == nil {
			t.Fatal("Run returned nil after Failed")
		}
		checkErr("Status.Err", st.Err)
		checkErr("Run's error", runErr)
		check("the log", logs.String())
		check("the readiness body", readyBody(s))
	})
}
