package httpcore

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/internal/opterr"
)

var wsSpec = &Spec{Pkg: "websocket", Schemes: []string{"ws", "wss"}}

func TestParseURL(t *testing.T) {
	u, err := parseURL(wsSpec, "url", "wss://u:pw-1234@h:1/x?token=T1xx&room=r", []string{"room"})
	require.NoError(t, err)
	assert.Equal(t, "wss://xxxxx@h:1/x?token=xxxxx&room=r", u.shown)
	assert.Equal(t, "h:1", u.parsed.Host)
	assert.Equal(t, "xxxxx xxxxx", u.secrets.Text("T1xx pw-1234"))

	for raw, want := range map[string]string{
		"":                        "websocket: Replicas[0]: empty",
		"ws://[::1":               "websocket: Replicas[0]: malformed: missing ']' in host",
		"http://h/x?token=SECRET": `websocket: Replicas[0] "http://h/x?token=xxxxx": scheme "http" is not ws or wss`,
		"ws:///x":                 `websocket: Replicas[0] "ws:///x": no host`,
		"wss://u:?s3cretpw@h/x":   `websocket: Replicas[0] "wss://u:?xxxxx": empty port (escape '?', '#', '/' and '@' in a password)`,
	} {
		_, err := parseURL(wsSpec, "Replicas[0]", raw, nil)
		assert.EqualError(t, err, want, raw)
		assert.ErrorIs(t, err, opterr.ErrInvalid)
	}
}

func TestParseEndpoints(t *testing.T) {
	sse := &Spec{Pkg: "sse", Schemes: []string{"https"}}
	cfg := &Config{URL: "https://a/x?t=SECRET-A", Replicas: []string{"https://b/x?t=SECRET-B"}, Header: http.Header{"A": {"Bearer T0KEN"}}}
	e, secrets, err := parseEndpoints(sse, cfg, "")
	require.NoError(t, err)
	c := &Core{eps: e}
	assert.Equal(t, []string{"https://a/x?t=xxxxx", "https://b/x?t=xxxxx"}, (&connector[int]{Core: c}).Endpoints())
	assert.Equal(t, `dial "https://b/x?t=xxxxx"`, c.Step("dial", 1), "several endpoints: errors name theirs")
	assert.Equal(t, "xxxxx xxxxx xxxxx", secrets.Text("SECRET-A SECRET-B T0KEN"))

	one, _, err := parseEndpoints(sse, &Config{URL: "https://a/x"}, "")
	require.NoError(t, err)
	assert.Equal(t, "dial", (&Core{eps: one}).Step("dial", 0), "the default Name is the url: not twice")
	named, _, err := parseEndpoints(sse, &Config{URL: "https://a/x"}, "feed")
	require.NoError(t, err)
	assert.Equal(t, `dial "https://a/x"`, (&Core{eps: named}).Step("dial", 0))

	_, _, err = parseEndpoints(sse, &Config{URL: "https://a/x", Replicas: []string{"https://b", "ftp://c"}}, "")
	assert.EqualError(t, err, `sse: Replicas[1] "ftp://c": scheme "ftp" is not https`)
}
