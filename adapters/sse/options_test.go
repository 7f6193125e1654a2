package sse_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/sse"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// Every bad url or option is one error, said once in the module's shape,
// that wraps supervisor.ErrInvalidOptions and never repeats a credential.
func TestNewRejectsBadOptions(t *testing.T) {
	ok := "http://127.0.0.1:1/events"
	const refused = "contains a control character other than tab, which net/http refuses in a header value"
	cases := []struct {
		name string
		url  string
		edit func(*sse.Options)
		want string
	}{
		{"empty url", "", nil, `sse: url: empty`},
		{"ftp scheme", "ftp://h", nil, `sse: url "ftp://h": scheme "ftp" is not http or https`},
		{"ws scheme with token", "ws://127.0.0.1/feed?token=TOK-s3cret", nil, `sse: url "ws://127.0.0.1/feed?token=xxxxx": scheme "ws" is not http or https`},
		{"malformed url", "http://alice:PW-s3cret@127.0.0.1:port/x", nil, `sse: url: malformed: invalid port ":port" after host`},
		{"no scheme", "127.0.0.1:80/feed", nil, `sse: url: malformed: first path segment in URL cannot contain colon`},
		{"no host", "http:///events", nil, `sse: url "http:///events": no host`},
		{"negative IdleTimeout", ok, func(o *sse.Options) { o.IdleTimeout = -time.Second }, `sse: IdleTimeout -1s: negative`},
		{"absurd IdleTimeout", ok, func(o *sse.Options) { o.IdleTimeout = 25 * time.Hour }, `sse: IdleTimeout 25h0m0s: longer than 24h0m0s`},
		{"negative ReadLimit", ok, func(o *sse.Options) { o.ReadLimit = -1 }, `sse: ReadLimit -1: negative`},
		{"negative Buffer", ok, func(o *sse.Options) { o.Buffer = -2 }, `sse: Buffer -2: negative`},
		{"LastEventID with a line break", ok, func(o *sse.Options) { o.LastEventID = "7\r\nX-Evil: 1" }, `sse: LastEventID "7\r\nX-Evil: 1": ` + refused},
		{"LastEventID with \\x01", ok, func(o *sse.Options) { o.LastEventID = "a\x01b" }, `sse: LastEventID "a\x01b": ` + refused},
		{"LastEventID with NUL", ok, func(o *sse.Options) { o.LastEventID = "a\x00" }, `sse: LastEventID "a\x00": ` + refused},
		{"LastEventID with DEL", ok, func(o *sse.Options) { o.LastEventID = "a\x7f" }, `sse: LastEventID "a\x7f": ` + refused},
		{"Header value with \\x01", ok, func(o *sse.Options) { o.Header = http.Header{"X-Key": {"k3y\x01-s3cret"}} }, `sse: Header "X-Key": a value holds a control character other than tab, which net/http refuses in a header value`},
		{"Header name not a token", ok, func(o *sse.Options) { o.Header = http.Header{"X Key": {"v"}} }, `sse: Header "X Key": not a valid header name`},
		{"negative MaxAttempts", ok, func(o *sse.Options) { o.Supervisor.MaxAttempts = -1 }, `sse: Supervisor.MaxAttempts -1: negative`},
		{"negative ConnectTimeout", ok, func(o *sse.Options) { o.Supervisor.ConnectTimeout = -time.Second }, `sse: Supervisor.ConnectTimeout -1s: negative`},
		{"negative Backoff.Base", ok, func(o *sse.Options) { o.Supervisor.Backoff.Base = -time.Second }, `sse: Supervisor.Backoff.Base -1s: negative`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var o sse.Options
			if tc.edit != nil {
				tc.edit(&o)
			}
			c, err := sse.New(tc.url, o)
			require.Error(t, err)
			assert.Nil(t, c)
			assert.EqualError(t, err, tc.want)
			assert.True(t, errors.Is(err, supervisor.ErrInvalidOptions), "wraps ErrInvalidOptions: %v", err)
			assert.NotContains(t, err.Error(), "s3cret", "the error repeats a credential")
		})
	}
}

func TestNewDefaults(t *testing.T) {
	c, err := sse.New("https://bob:PW-s3cret@example.com/events?token=TOK-s3cret&room=1", sse.Options{})
	require.NoError(t, err)
	assert.Equal(t, "https://xxxxx@example.com/events?token=xxxxx&room=xxxxx", c.Name(), "the Name is the redacted URL: every query value masked")
	assert.Equal(t, health.Idle, c.Status().State)
	assert.Empty(t, c.LastEventID())
	c, err = sse.New("https://example.com/events?jwt=TOK-s3cret&room=1", sse.Options{PublicQuery: []string{"room"}, LastEventID: "41"})
	require.NoError(t, err)
	assert.Equal(t, "https://example.com/events?jwt=xxxxx&room=1", c.Name(), "a public key's value is shown; any other is not, whatever its name")
	assert.Equal(t, "41", c.LastEventID(), "where the first request resumes")
	c, err = sse.New("http://example.com", sse.Options{Supervisor: supervisor.Settings{Name: "prices"}})
	require.NoError(t, err)
	assert.Equal(t, "prices", c.Name(), "the program's Name wins")
}

// New copies Options: changing the caller's Header afterwards changes
// nothing of the requests. The Client's own headers are set on every
// request.
func TestNewCopiesOptionsAndSetsItsHeaders(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		stream(w)
		<-r.Context().Done()
	})
	o := testOptions()
	o.Header = http.Header{"X-Room": {"lobby"}, "Accept": {"text/html"}}
	o.LastEventID = "41"
	c := start(t, srv.URL+"/events", o, nil)
	o.Header.Set("X-Room", "changed")
	testkit.WaitStatus(t, c, 5*time.Second, "connected", testkit.Connected(1))
	r := srv.request(1)
	assert.Equal(t, "lobby", r.Header.Get("X-Room"))
	assert.Equal(t, "text/event-stream", r.Header.Get("Accept"))
	assert.Equal(t, "no-cache", r.Header.Get("Cache-Control"))
	assert.Equal(t, "41", r.Header.Get("Last-Event-ID"), "Options.LastEventID resumes the first request")
	assert.Equal(t, http.MethodGet, r.Method)
	require.NoError(t, c.stop())
}
