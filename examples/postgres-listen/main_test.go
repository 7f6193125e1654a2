package main

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/internal/testing/pgtest"
	"github.com/redial-go/redial/internal/testing/testkit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestListenAcrossARestart runs the example against a throwaway server,
// restarts the server, and checks that notifications before and after
// arrive and the resync line is printed.
func TestListenAcrossARestart(t *testing.T) {
	pg := pgtest.Start(t, pgtest.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	var out testkit.Buffer
	done := make(chan error, 1)
	go func() { done <- listen(ctx, &out, pg.DSN(), []string{"orders"}, 0) }()

	notify := func(payload string) {
		c := pg.Connect(t)
		defer c.Close(context.Background())
		_, err := c.Exec(context.Background(), "SELECT pg_notify('orders', $1)", payload)
		require.NoError(t, err)
	}
	out.WaitFor(t, "msg=connected", 15*time.Second) // the Listener logs it once LISTEN is done
	notify("order 1")
	out.WaitFor(t, "orders: order 1", 15*time.Second)
	pg.Restart(t, pgtest.Fast)
	out.WaitFor(t, "resync here", 15*time.Second) // after the reconnect, once LISTEN is done again
	notify("order 2")
	out.WaitFor(t, "orders: order 2", 15*time.Second)
	cancel()
	require.NoError(t, <-done)
	assert.NotContains(t, out.String(), pg.Password(), "the password never shows")
}

// TestExitsWhenThePasswordIsWrong points the command at a server that
// refuses the role's password, with a DSN that says nothing of sslmode
// (pgx's prefer), on a server without TLS (pgx tries TLS first, then
// plain) and on one with it: the Listener gives up at once (28P01) and
// the command exits non-zero with one line that says why, never the
// password itself.
func TestExitsWhenThePasswordIsWrong(t *testing.T) {
	for name, o := range map[string]pgtest.Options{"TLS off": {}, "TLS on": {TLS: true}} {
		t.Run(name, func(t *testing.T) {
			pg := pgtest.Start(t, o)
			dsn := pg.URL("postgres", "wrong-password", "postgres")
			require.NotContains(t, dsn, "sslmode")
			out := testkit.ExitsForGood(t, run, "password authentication failed", "-dsn", dsn)
			assert.NotContains(t, out, "wrong-password")
			assert.NotContains(t, out, "attempt failed")
		})
	}
}

// TestSaysItRetriesThenGivesUp points the command at a closed port with
// -max-attempts 3: its log says each retry once, with the redacted DSN and
// the wait, and one line on stderr says it gave up.
func TestSaysItRetriesThenGivesUp(t *testing.T) {
	addr := testkit.ClosedAddr(t)
	out := testkit.ExitsForGood(t, run, "gave up after 3 attempts", "-dsn", "postgres://app:SECRET123@"+addr+"/orders", "-max-attempts", "3")
	retry := regexp.MustCompile(`(?m)^.* level=WARN msg="attempt failed" name="postgres listener postgres://app@` + regexp.QuoteMeta(addr) + `/orders" state=backoff consecutive_failures=(\d) .*delay=\S+ `)
	var attempts []string
	for _, m := range retry.FindAllStringSubmatch(out, -1) {
		attempts = append(attempts, m[1])
	}
	assert.Equal(t, []string{"1", "2"}, attempts, out)
	assert.NotContains(t, out, "SECRET123")
}
