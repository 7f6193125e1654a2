package websocket_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	redialws "github.com/redial-go/redial/adapters/websocket"
)

func TestNewRejectsBadOptions(t *testing.T) {
	ok := "ws://127.0.0.1:1/feed"
	cases := []struct {
		name  string
		edit  func(*redialws.Options)
		field string
	}{
		{"empty URL", func(o *redialws.Options) { o.URL = "" }, "URL is empty"},
		{"malformed URL", func(o *redialws.Options) { o.URL = "ws://alice:PW-s3cret@127.0.0.1:port/x" }, "URL is malformed"},
		{"control character", func(o *redialws.Options) { o.URL = "ws://127.0.0.1/\x7f?token=TOK-s3cret" }, "URL is malformed"},
		{"http scheme", func(o *redialws.Options) { o.URL = "http://127.0.0.1/feed?token=TOK-s3cret" }, `scheme "http" is not ws or wss`},
		{"no scheme", func(o *redialws.Options) { o.URL = "127.0.0.1:80/feed" }, "URL"},
		{"no host", func(o *redialws.Options) { o.URL = "ws:///feed" }, "has no host"},
		{"negative ReadLimit", func(o *redialws.Options) { o.ReadLimit = -1 }, "ReadLimit"},
		{"negative PingInterval", func(o *redialws.Options) { o.PingInterval = -time.Second }, "PingInterval"},
		{"negative PingTimeout", func(o *redialws.Options) { o.PingTimeout = -time.Second }, "PingTimeout"},
		{"negative CloseTimeout", func(o *redialws.Options) { o.CloseTimeout = -time.Second }, "CloseTimeout"},
		{"negative CloseHint", func(o *redialws.Options) { o.CloseHint = -time.Second }, "CloseHint"},
		{"absurd PingInterval", func(o *redialws.Options) { o.PingInterval = 100 * 365 * 24 * time.Hour }, "PingInterval"},
		{"absurd PingTimeout", func(o *redialws.Options) { o.PingTimeout = 25 * time.Hour }, "PingTimeout"},
		{"absurd CloseTimeout", func(o *redialws.Options) { o.CloseTimeout = 25 * time.Hour }, "CloseTimeout"},
		{"absurd CloseHint", func(o *redialws.Options) { o.CloseHint = 25 * time.Hour }, "CloseHint"},
		{"negative MaxAttempts", func(o *redialws.Options) { o.Supervisor.MaxAttempts = -1 }, "MaxAttempts"},
		{"negative ConnectTimeout", func(o *redialws.Options) { o.Supervisor.ConnectTimeout = -time.Second }, "ConnectTimeout"},
		{"negative MaxHint", func(o *redialws.Options) { o.Supervisor.MaxHint = -time.Second }, "MaxHint"},
		{"negative Backoff.Base", func(o *redialws.Options) { o.Supervisor.Backoff.Base = -time.Second }, "Backoff"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := redialws.Options{URL: ok}
			tc.edit(&o)
			s, err := redialws.New(o)
			require.Error(t, err)
			assert.Nil(t, s)
			assert.Contains(t, err.Error(), tc.field)
			assert.NotContains(t, err.Error(), "s3cret", "the error repeats a credential")
			t.Logf("%s: %v", tc.name, err)
		})
	}
}

func TestNewDefaults(t *testing.T) {
	s, err := redialws.New(redialws.Options{URL: "wss://bob:PW-s3cret@example.com/feed?token=TOK-s3cret&room=1"})
	require.NoError(t, err)
	assert.Equal(t, "wss://xxxxx@example.com/feed?room=1", s.Name(), "the Name is the redacted URL")
	c, err := redialws.NewConnector(redialws.Options{URL: "ws://example.com"})
	require.NoError(t, err)
	assert.Equal(t, "ws://example.com", c.URL())
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
		c, err := redialws.NewConnector(redialws.Options{URL: u})
		if err != nil {
			assert.NotContains(t, err.Error(), "s3cretpw", u)
			continue
		}
		assert.NotContains(t, c.URL(), "s3cretpw", u)
	}
}
