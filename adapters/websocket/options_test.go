package websocket_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

// Every bad url or option is one error, said once in the module's shape,
// that wraps supervisor.ErrInvalidOptions and never repeats a credential.
func TestNewRejectsBadOptions(t *testing.T) {
	ok := "ws://127.0.0.1:1/feed"
	cases := []struct {
		name string
		url  string
		edit func(*redialws.Options)
		want string
	}{
		{"empty url", "", nil, `websocket: url: empty`},
		{"malformed url", "ws://alice:PW-s3cret@127.0.0.1:port/x", nil, `websocket: url: malformed: invalid port ":port" after host`},
		{"control character", "ws://127.0.0.1/\x7f?token=TOK-s3cret", nil, `websocket: url: malformed: net/url: invalid control character in URL`},
		{"http scheme", "http://h/x", nil, `websocket: url "http://h/x": scheme "http" is not ws or wss`},
		{"http scheme with token", "http://127.0.0.1/feed?token=TOK-s3cret", nil, `websocket: url "http://127.0.0.1/feed?token=xxxxx": scheme "http" is not ws or wss`},
		{"no scheme", "127.0.0.1:80/feed", nil, `websocket: url: malformed: first path segment in URL cannot contain colon`},
		{"no host", "ws:///feed", nil, `websocket: url "ws:///feed": no host`},
		{"negative ReadLimit", ok, func(o *redialws.Options) { o.ReadLimit = -1 }, `websocket: ReadLimit -1: negative`},
		{"unknown CompressionMode", ok, func(o *redialws.Options) { o.CompressionMode = 7 }, `websocket: CompressionMode 7: unknown`},
		{"negative PingInterval", ok, func(o *redialws.Options) { o.PingInterval = -time.Second }, `websocket: PingInterval -1s: negative`},
		{"negative PingTimeout", ok, func(o *redialws.Options) { o.PingTimeout = -time.Second }, `websocket: PingTimeout -1s: negative`},
		{"negative CloseTimeout", ok, func(o *redialws.Options) { o.CloseTimeout = -time.Second }, `websocket: CloseTimeout -1s: negative`},
		{"negative CloseHint", ok, func(o *redialws.Options) { o.CloseHint = -time.Second }, `websocket: CloseHint -1s: negative`},
		{"absurd PingInterval", ok, func(o *redialws.Options) { o.PingInterval = 100 * 365 * 24 * time.Hour }, `websocket: PingInterval 876000h0m0s: longer than 24h0m0s`},
		{"absurd PingTimeout", ok, func(o *redialws.Options) { o.PingTimeout = 25 * time.Hour }, `websocket: PingTimeout 25h0m0s: longer than 24h0m0s`},
		{"absurd CloseTimeout", ok, func(o *redialws.Options) { o.CloseTimeout = 25 * time.Hour }, `websocket: CloseTimeout 25h0m0s: longer than 24h0m0s`},
		{"absurd CloseHint", ok, func(o *redialws.Options) { o.CloseHint = 48 * time.Hour }, `websocket: CloseHint 48h0m0s: longer than 24h0m0s`},
		{"negative MaxAttempts", ok, func(o *redialws.Options) { o.Supervisor.MaxAttempts = -1 }, `websocket: Supervisor.MaxAttempts -1: negative`},
		{"negative ConnectTimeout", ok, func(o *redialws.Options) { o.Supervisor.ConnectTimeout = -time.Second }, `websocket: Supervisor.ConnectTimeout -1s: negative`},
		{"negative MaxHint", ok, func(o *redialws.Options) { o.Supervisor.MaxHint = -time.Second }, `websocket: Supervisor.MaxHint -1s: negative`},
		{"negative Backoff.Base", ok, func(o *redialws.Options) { o.Supervisor.Backoff.Base = -time.Second }, `websocket: Supervisor.Backoff.Base -1s: negative`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var o redialws.Options
			if tc.edit != nil {
				tc.edit(&o)
			}
			s, err := redialws.New(tc.url, o)
			require.Error(t, err)
			assert.Nil(t, s)
			assert.EqualError(t, err, tc.want)
			assert.True(t, errors.Is(err, supervisor.ErrInvalidOptions), "wraps ErrInvalidOptions: %v", err)
			assert.NotContains(t, err.Error(), "s3cret", "the error repeats a credential")
		})
	}
}

// A bad Backoff is still a backoff.ErrInvalidConfig too.
func TestNewBadBackoffKeepsItsSentinel(t *testing.T) {
	_, err := redialws.New("ws://h/x", redialws.Options{Supervisor: supervisor.Options[*websocket.Conn]{Backoff: backoff.Config{Cap: 48 * time.Hour}}})
	assert.EqualError(t, err, "websocket: Supervisor.Backoff.Cap 48h0m0s: longer than 24h0m0s")
	assert.ErrorIs(t, err, supervisor.ErrInvalidOptions)
	assert.ErrorIs(t, err, backoff.ErrInvalidConfig)
}

func TestNewDefaults(t *testing.T) {
	s, err := redialws.New("wss://bob:PW-s3cret@example.com/feed?token=TOK-s3cret&room=1", redialws.Options{})
	require.NoError(t, err)
	assert.Equal(t, "wss://xxxxx@example.com/feed?token=xxxxx&room=xxxxx", s.Name(), "the Name is the redacted URL: every query value masked")
	s, err = redialws.New("wss://example.com/feed?jwt=TOK-s3cret&room=1", redialws.Options{PublicQuery: []string{"room"}})
	require.NoError(t, err)
	assert.Equal(t, "wss://example.com/feed?jwt=xxxxx&room=1", s.Name(), "a public key's value is shown; any other is not, whatever its name")
	s, err = redialws.New("ws://example.com", redialws.Options{})
	require.NoError(t, err)
	assert.Equal(t, "ws://example.com", s.Name())
	s, err = redialws.New("ws://example.com", redialws.Options{Supervisor: supervisor.Options[*websocket.Conn]{Name: "prices"}})
	require.NoError(t, err)
	assert.Equal(t, "prices", s.Name(), "the program's Name wins")
}

// New copies Options: changing the caller's Header or Subprotocols
// afterwards changes nothing of the supervisor's handshakes.
func TestNewCopiesOptions(t *testing.T) {
	got := make(chan http.Header, 4)
	srv := startServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		if c := s.accept(w, r); c != nil {
			s.feed(r.Context(), c)
		}
	})
	o := testOptions()
	o.Header = http.Header{"X-Room": {"lobby"}}
	o.Subprotocols = []string{"prices.v1"}
	c := run(t, srv.url("/feed"), o, true)
	o.Header.Set("X-Room", "changed")
	o.Subprotocols[0] = "changed"
	h := <-got
	assert.Equal(t, "lobby", h.Get("X-Room"))
	assert.Equal(t, "prices.v1", h.Get("Sec-WebSocket-Protocol"))
	require.NoError(t, c.stop())
}

// TestURLCredentialsNeverInName covers URLs whose credentials fool a URL
// parser or sit in the user name: refused, or redacted.
func TestURLCredentialsNeverInName(t *testing.T) {
	for _, u := range []string{
		"wss://user:?s3cretpw@feed.example/x",
		"wss://user:1234?s3cretpw@feed.example/x",
		"wss://s3cretpw@feed.example/x",
		"wss://s3cretpw:@feed.example/x",
	} {
		s, err := redialws.New(u, redialws.Options{})
		if err != nil {
			assert.NotContains(t, err.Error(), "s3cretpw", u)
			assert.ErrorIs(t, err, supervisor.ErrInvalidOptions, u)
			continue
		}
		assert.NotContains(t, s.Name(), "s3cretpw", u)
	}
}
