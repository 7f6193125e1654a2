package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/internal/testing/testkit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestFollowResubscribesAfterARestart follows the local feed across one of
// its restarts.
func TestFollowResubscribesAfterARestart(t *testing.T) {
	feed, err := startLocalFeed(time.Second)
	require.NoError(t, err)
	defer feed.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	var out testkit.Buffer // follow writes from several goroutines
	require.NoError(t, follow(ctx, &out, feed.URL, "prices", 0))
	text := out.String()
	assert.Contains(t, text, "connected (#1): subscribing to prices")
	assert.Contains(t, text, "connected (#2): subscribing to prices", "resubscribed after the 1012 restart:\n%s", text)
	assert.Contains(t, text, "StatusServiceRestart")
	assert.GreaterOrEqual(t, strings.Count(text, "prices: "), 5)
}

// TestExitsWhenTheFeedRefusesForGood points the command at a feed that
// answers every handshake 401: it exits at once, non-zero, with one line
// that says why, instead of printing "lost" in a loop; and at a closed port
// with -max-attempts 3.
func TestExitsWhenTheFeedRefusesForGood(t *testing.T) {
	addr := testkit.Unauthorized(t)
	out := testkit.ExitsForGood(t, run, "401 Unauthorized", "-url", "ws://"+addr+"/feed?token=SECRET123")
	assert.NotContains(t, out, "lost:")
	assert.NotContains(t, out, `msg="attempt failed"`)
	assert.Contains(t, out, `level=ERROR msg="gave up" name="ws://`+addr+`/feed?token=xxxxx" state=failed consecutive_failures=1 `)
	assert.NotContains(t, out, "SECRET123")

	// A closed port is retried, logged once per attempt with the redacted
	// URL and the wait, until -max-attempts; then one line says it gave up.
	addr = testkit.ClosedAddr(t)
	out = testkit.ExitsForGood(t, run, "gave up after 3 attempts", "-url", "ws://"+addr+"/feed?token=SECRET123", "-max-attempts", "3")
	url := "ws://" + addr + "/feed?token=xxxxx"
	for _, n := range []string{"1", "2"} {
		assert.Contains(t, out, `level=WARN msg="attempt failed" name="`+url+`" state=backoff consecutive_failures=`+n+` `)
	}
	assert.Equal(t, 2, strings.Count(out, " reason=backoff\n"), "a record per failed attempt, with its wait:\n%s", out)
	assert.Contains(t, out, `level=ERROR msg="gave up" name="`+url+`" state=failed consecutive_failures=3 `)
	assert.NotContains(t, out, "SECRET123")
}
