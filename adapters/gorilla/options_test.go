package gorilla_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/gorilla"
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
		edit func(*gorilla.Options)
		want string
	}{
		{"empty url", "", nil, `gorilla: url: empty`},
		{"malformed url", "ws://alice:PW-s3cret@127.0.0.1:port/x", nil, `gorilla: url: malformed: invalid port ":port" after host`},
		{"control character", "ws://127.0.0.1/\x7f?token=TOK-s3cret", nil, `gorilla: url: malformed: net/url: invalid control character in URL`},
		{"http scheme", "http://h/x", nil, `gorilla: url "http://h/x": scheme "http" is not ws or wss`},
		{"http scheme with token", "http://127.0.0.1/feed?token=TOK-s3cret", nil, `gorilla: url "http://127.0.0.1/feed?token=xxxxx": scheme "http" is not ws or wss`},
		{"no scheme", "127.0.0.1:80/feed", nil, `gorilla: url: malformed: first path segment in URL cannot contain colon`},
		{"no host", "ws:///feed", nil, `gorilla: url "ws:///feed": no host`},
		{"negative ReadLimit", ok, func(o *gorilla.Options) { o.ReadLimit = -1 }, `gorilla: ReadLimit -1: negative`},
		{"negative PingInterval", ok, func(o *gorilla.Options) { o.PingInterval = -time.Second }, `gorilla: PingInterval -1s: negative`},
		{"negative PingTimeout", ok, func(o *gorilla.Options) { o.PingTimeout = -time.Second }, `gorilla: PingTimeout -1s: negative`},
		{"negative CloseTimeout", ok, func(o *gorilla.Options) { o.CloseTimeout = -time.Second }, `gorilla: CloseTimeout -1s: negative`},
		{"negative CloseHint", ok, func(o *gorilla.Options) { o.CloseHint = -time.Second }, `gorilla: CloseHint -1s: negative`},
		{"absurd PingInterval", ok, func(o *gorilla.Options) { o.PingInterval = 100 * 365 * 24 * time.Hour }, `gorilla: PingInterval 876000h0m0s: longer than 24h0m0s`},
		{"absurd PingTimeout", ok, func(o *gorilla.Options) { o.PingTimeout = 25 * time.Hour }, `gorilla: PingTimeout 25h0m0s: longer than 24h0m0s`},
		{"absurd CloseTimeout", ok, func(o *gorilla.Options) { o.CloseTimeout = 25 * time.Hour }, `gorilla: CloseTimeout 25h0m0s: longer than 24h0m0s`},
		{"absurd CloseHint", ok, func(o *gorilla.Options) { o.CloseHint = 48 * time.Hour }, `gorilla: CloseHint 48h0m0s: longer than 24h0m0s`},
		{"handshake header", ok, func(o *gorilla.Options) { o.Header = http.Header{"Upgrade": {"h2c"}} }, `gorilla: Header "Upgrade": set by the handshake`},
		{"handshake header, not canonical", ok, func(o *gorilla.Options) { o.Header = http.Header{"sec-websocket-key": {"k"}} }, `gorilla: Header "Sec-Websocket-Key": set by the handshake`},
		{"first bad header", ok, func(o *gorilla.Options) {
			o.Header = http.Header{"Upgrade": {"x"}, "Connection": {"x"}, "Sec-Websocket-Version": {"x"}}
		}, `gorilla: Header "Connection": set by the handshake`},
		{"protocol header and Subprotocols", ok, func(o *gorilla.Options) {
			o.Header, o.Subprotocols = http.Header{"Sec-Websocket-Protocol": {"a"}}, []string{"b"}
		}, `gorilla: Header "Sec-Websocket-Protocol": set by the handshake from Subprotocols`},
		{"negative MaxAttempts", ok, func(o *gorilla.Options) { o.Supervisor.MaxAttempts = -1 }, `gorilla: Supervisor.MaxAttempts -1: negative`},
		{"negative ConnectTimeout", ok, func(o *gorilla.Options) { o.Supervisor.ConnectTimeout = -time.Second }, `gorilla: Supervisor.ConnectTimeout -1s: negative`},
		{"negative MaxHint", ok, func(o *gorilla.Options) { o.Supervisor.MaxHint = -time.Second }, `gorilla: Supervisor.MaxHint -1s: negative`},
		{"negative Backoff.Base", ok, func(o *gorilla.Options) { o.Supervisor.Backoff.Base = -time.Second }, `gorilla: Supervisor.Backoff.Base -1s: negative`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var o gorilla.Options
			if tc.edit != nil {
				tc.edit(&o)
			}
			s, err := gorilla.New(tc.url, o)
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
	_, err := gorilla.New("ws://h/x", gorilla.Options{Supervisor: supervisor.Options[*websocket.Conn]{Backoff: backoff.Config{Cap: 48 * time.Hour}}})
	assert.EqualError(t, err, "gorilla: Supervisor.Backoff.Cap 48h0m0s: longer than 24h0m0s")
	assert.ErrorIs(t, err, supervisor.ErrInvalidOptions)
	assert.ErrorIs(t, err, backoff.ErrInvalidConfig)
}

func TestNewDefaults(t *testing.T) {
	assert.LessOrEqual(t, gorilla.DefaultPingInterval+gorilla.DefaultPingTimeout, 15*time.Second, "a dead path is found within 15s")
	s, err := gorilla.New("wss://bob:PW-s3cret@example.com/feed?token=TOK-s3cret&room=1", gorilla.Options{})
	require.NoError(t, err)
	assert.Equal(t, "wss://xxxxx@example.com/feed?token=xxxxx&room=xxxxx", s.Name(), "the Name is the redacted URL: every query value masked")
	s, err = gorilla.New("wss://example.com/feed?jwt=TOK-s3cret&room=1", gorilla.Options{PublicQuery: []string{"room"}})
	require.NoError(t, err)
	assert.Equal(t, "wss://example.com/feed?jwt=xxxxx&room=1", s.Name(), "a public key's value is shown; any other is not, whatever its name")
	s, err = gorilla.New("ws://example.com", gorilla.Options{})
	require.NoError(t, err)
	assert.Equal(t, "ws://example.com", s.Name())
	s, err = gorilla.New("ws://example.com", gorilla.Options{Supervisor: supervisor.Options[*websocket.Conn]{Name: "prices"}})
	require.NoError(t, err)
	assert.Equal(t, "prices", s.Name(), "the program's Name wins")
}

// New copies Options: changing the caller's Header or Subprotocols
// afterwards changes nothing of the supervisor's handshakes.
func TestNewCopiesOptions(t *testing.T) {
	got := make(chan http.Header, 4)
	srv := startServer(t, impls[0], func(s *server, w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		if p := s.accept(w, r, acceptOpts{}); p != nil {
			s.feed(r.Context(), p)
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
		s, err := gorilla.New(u, gorilla.Options{})
		if err != nil {
			assert.NotContains(t, err.Error(), "s3cretpw", u)
			assert.ErrorIs(t, err, supervisor.ErrInvalidOptions, u)
			continue
		}
		assert.NotContains(t, s.Name(), "s3cretpw", u)
	}
}
