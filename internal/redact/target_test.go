package redact_test

import (
	"errors"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/redact"
)

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u
}

// Every query value is a secret unless its key is public: no list of
// names decides (jwt, ticket, sid, code, hmac, otp, pw...).
func TestURLMasksEveryQueryValueByConstruction(t *testing.T) {
	for _, key := range []string{"jwt", "ticket", "session", "sessionid", "sid", "access", "bearer", "code", "hmac", "otp", "pw", "x"} {
		tg := redact.URL(mustURL(t, "ws://feed.example:8080/feed?"+key+"=SECRET123&room=7"), "room")
		assert.Equal(t, "ws://feed.example:8080/feed?"+key+"=xxxxx&room=7", tg.Shown(), key)
		assert.NotContains(t, tg.Text("session SECRET123 expired"), "SECRET123", key)
	}
}

func TestURLMasksUserinfoWhole(t *testing.T) {
	tg := redact.URL(mustURL(t, "wss://tokenuser:p%40ss-word@h/x"))
	assert.Equal(t, "wss://xxxxx@h/x", tg.Shown())
	text := tg.Text("auth for tokenuser failed with p@ss-word (p%40ss-word)")
	assert.NotContains(t, text, "tokenuser")
	assert.NotContains(t, text, "p@ss-word")
	assert.NotContains(t, text, "p%40ss-word")
}

func TestTextReplacesTheRawTargetAndPairs(t *testing.T) {
	raw := "ws://h/feed?t=ab&room=7"
	tg := redact.URL(mustURL(t, raw), "room")
	assert.Equal(t, `GET "ws://h/feed?room=7&t=xxxxx": 401`, tg.Text(`GET "`+raw+`": 401`), "the raw target is shown in its safe form")
	assert.Equal(t, "bad t=xxxxx here", tg.Text("bad t=ab here"), "a secret shorter than MinSecret is masked next to its key")
	assert.Equal(t, "127.0.0.1:7 ab", tg.Text("127.0.0.1:7 ab"), "short values are not masked in free text: it would garble it")
}

func TestWithAddsSecrets(t *testing.T) {
	tg := redact.URL(mustURL(t, "ws://h/x")).With("Bearer hdr-value-1", "")
	assert.Equal(t, "sent xxxxx", tg.Text("sent Bearer hdr-value-1"))
}

func TestErrorKeepsOnlyTheSafeChain(t *testing.T) {
	tg := redact.URL(mustURL(t, "ws://h/x?token=SECRET123"))
	inner := fmt.Errorf("reason SECRET123: %w", errors.ErrUnsupported)
	safe := errors.New("safe")
	err := tg.Error(inner, safe)
	assert.Equal(t, "reason xxxxx: unsupported operation", err.Error())
	assert.ErrorIs(t, err, safe)
	assert.NotErrorIs(t, err, errors.ErrUnsupported, "the chain that held the secret is gone")
	assert.NoError(t, tg.Error(nil))
}

func TestLongestSecretFirst(t *testing.T) {
	tg := redact.URL(mustURL(t, "ws://h/x?a=abcd&b=abcdefgh"))
	assert.Equal(t, "xxxxx and xxxxx", tg.Text("abcdefgh and abcd"))
}

func TestURLMasksABareQuery(t *testing.T) {
	// A password with a raw '?' turns the rest of the URL into a query.
	tg := redact.URL(mustURL(t, "wss://user:1234?s3cretpw@feed.example/x"))
	assert.NotContains(t, tg.Shown(), "s3cretpw")
	assert.NotContains(t, tg.Text("dial wss://user:1234?s3cretpw@feed.example/x: refused"), "s3cretpw")
	tg = redact.URL(mustURL(t, "ws://h/x?SECRETTOKEN&room=1&empty="), "room")
	assert.Equal(t, "ws://h/x?xxxxx&room=1&empty=", tg.Shown())
}

func TestErrorKeepsTheBackoffMarks(t *testing.T) {
	tg := redact.URL(mustURL(t, "ws://h/x?token=SECRET123"))
	err := tg.Error(backoff.RetryAfter(backoff.Permanent(errors.New("SECRET123")), time.Second))
	assert.Equal(t, "xxxxx", err.Error())
	assert.True(t, backoff.IsPermanent(err))
	d, ok := backoff.RetryAfterHint(err)
	assert.True(t, ok)
	assert.Equal(t, time.Second, d)
}

func TestJoin(t *testing.T) {
	base := redact.URL(mustURL(t, "ws://h/x?token=OLD-TOKEN&t=ab"))
	attempt := redact.URL(mustURL(t, "ws://h/x?token=NEW-TOKEN&t=cd")).With("Bearer NEW-HEADER")
	j := base.Join(attempt)
	assert.Equal(t, base.Shown(), j.Shown())
	assert.Equal(t, "xxxxx xxxxx xxxxx t=xxxxx t=xxxxx", j.Text("OLD-TOKEN NEW-TOKEN Bearer NEW-HEADER t=ab t=cd"))
}
