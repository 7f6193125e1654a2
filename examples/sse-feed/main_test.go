package main

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/internal/testing/testkit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var tickLine = regexp.MustCompile(`(?m)^(\d+) tick: tick (\d+)$`)

// TestFollowResumesAcrossDrops follows the local feed across two of its
// drops: every tick is printed once, in order, none missing, though each
// reconnect waits the server's retry: while the feed goes on ticking.
func TestFollowResumesAcrossDrops(t *testing.T) {
	feed, err := startLocalFeed(600*time.Millisecond, 20*time.Millisecond, 200*time.Millisecond)
	require.NoError(t, err)
	defer feed.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var out testkit.Buffer // follow writes from several goroutines
	require.NoError(t, follow(ctx, &out, feed.URL, "", 0))
	text := out.String()
	ticks := tickLine.FindAllStringSubmatch(text, -1)
	require.NotEmpty(t, ticks, text)
	first, _ := strconv.Atoi(ticks[0][1])
	for i, m := range ticks {
		assert.Equal(t, strconv.Itoa(first+i), m[1], "tick %d: every tick once, in order:\n%s", i, text)
		assert.Equal(t, m[1], m[2], "the id is the tick's")
	}
	assert.GreaterOrEqual(t, strings.Count(text, "lost: sse: read: the server ended the stream (EOF) (resuming after event "), 2, text)
	assert.GreaterOrEqual(t, len(ticks), 40, text)
}

// TestRunDemo runs the command as a user would, without -url.
func TestRunDemo(t *testing.T) {
	var stdout, stderr testkit.Buffer
	code := run(context.Background(), []string{"-duration", "700ms"}, &stdout, &stderr)
	assert.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stdout.String(), "following the local feed at http://127.0.0.1:")
	assert.Regexp(t, tickLine, stdout.String())
	assert.Empty(t, stderr.String())
}

// TestExitsWhenTheFeedRefusesForGood points the command at a server that
// answers every request 401: it exits at once, non-zero, with one line
// that says why, instead of printing "lost" in a loop; and at a closed port
// with -max-attempts 3, where it logs each failed attempt first.
func TestExitsWhenTheFeedRefusesForGood(t *testing.T) {
	addr := testkit.Unauthorized(t)
	out := testkit.ExitsForGood(t, run, "401 Unauthorized", "-url", "http://"+addr+"/events?token=SECRET123")
	assert.NotContains(t, out, "lost:")
	assert.NotContains(t, out, `msg="attempt failed"`)
	assert.Contains(t, out, `level=ERROR msg="gave up" name="http://`+addr+`/events?token=xxxxx" state=failed consecutive_failures=1 `)
	assert.NotContains(t, out, "SECRET123")

	addr = testkit.ClosedAddr(t)
	out = testkit.ExitsForGood(t, run, "gave up after 3 attempts", "-url", "http://"+addr+"/events?token=SECRET123", "-max-attempts", "3")
	url := "http://" + addr + "/events?token=xxxxx"
	for _, n := range []string{"1", "2"} {
		assert.Contains(t, out, `level=WARN msg="attempt failed" name="`+url+`" state=backoff consecutive_failures=`+n+` `)
	}
	assert.Equal(t, 2, strings.Count(out, " reason=backoff\n"), "a record per failed attempt, with its wait:\n%s", out)
	assert.Contains(t, out, `level=ERROR msg="gave up" name="`+url+`" state=failed consecutive_failures=3 `)
	assert.NotContains(t, out, "SECRET123")
}

// TestBadURLExitsAtOnce: a url that is not http or https is said once.
func TestBadURLExitsAtOnce(t *testing.T) {
	testkit.ExitsForGood(t, run, `sse: url "ws://h/x": scheme "ws" is not http or https`, "-url", "ws://h/x")
}
