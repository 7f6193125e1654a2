package endpoint_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/internal/endpoint"
	"github.com/redial-go/redial/internal/opterr"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var ws = []string{"ws", "wss"}

func TestParse(t *testing.T) {
	u, err := endpoint.Parse("websocket", "url", "wss://u:pw-1234@h:1/x?token=T1xx&room=r", ws, []string{"room"}, http.Header{"Authorization": {"Bearer H6xx"}})
	require.NoError(t, err)
	assert.Equal(t, "wss://xxxxx@h:1/x?token=xxxxx&room=r", u.Shown)
	assert.Equal(t, "h:1", u.Parsed.Host)
	assert.Equal(t, "xxxxx xxxxx xxxxx xxxxx", u.Secrets.Text("T1xx pw-1234 H6xx Bearer H6xx"))

	for raw, want := range map[string]string{
		"":                        "websocket: Replicas[0]: empty",
		"ws://[::1":               "websocket: Replicas[0]: malformed: missing ']' in host",
		"http://h/x?token=SECRET": `websocket: Replicas[0] "http://h/x?token=xxxxx": scheme "http" is not ws or wss`,
		"ws:///x":                 `websocket: Replicas[0] "ws:///x": no host`,
		"wss://u:?s3cretpw@h/x":   `websocket: Replicas[0] "wss://u:?xxxxx": empty port (escape '?', '#', '/' and '@' in a password)`,
	} {
		_, err := endpoint.Parse("websocket", "Replicas[0]", raw, ws, nil, nil)
		assert.EqualError(t, err, want, raw)
		assert.ErrorIs(t, err, opterr.ErrInvalid)
	}
	_, err = endpoint.Parse("sse", "url", "ws://h/x", []string{"http", "https"}, nil, nil)
	assert.EqualError(t, err, `sse: url "ws://h/x": scheme "ws" is not http or https`)
}

func TestHeaderValues(t *testing.T) {
	assert.ElementsMatch(t, []string{"Bearer T0KEN", "T0KEN", "plain"}, endpoint.HeaderValues(http.Header{"A": {"Bearer T0KEN"}, "B": {"plain"}}))
}

func TestParseSet(t *testing.T) {
	s, err := endpoint.ParseSet("sse", "https://a/x?t=SECRET-A", []string{"https://b/x?t=SECRET-B"}, []string{"https"}, nil, nil, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"https://a/x?t=xxxxx", "https://b/x?t=xxxxx"}, s.Shown())
	assert.True(t, s.Named, "several endpoints: errors name theirs")
	assert.Equal(t, `dial "https://b/x?t=xxxxx"`, s.Step("dial", 1))
	assert.Equal(t, "xxxxx xxxxx", s.Base.Text("SECRET-A SECRET-B"))

	one, err := endpoint.ParseSet("sse", "https://a/x", nil, []string{"https"}, nil, nil, "")
	require.NoError(t, err)
	assert.Equal(t, "dial", one.Step("dial", 0), "the default Name is the url: not twice")
	named, err := endpoint.ParseSet("sse", "https://a/x", nil, []string{"https"}, nil, nil, "feed")
	require.NoError(t, err)
	assert.Equal(t, `dial "https://a/x"`, named.Step("dial", 0))

	_, err = endpoint.ParseSet("sse", "https://a/x", []string{"https://b", "ftp://c"}, []string{"https"}, nil, nil, "")
	assert.EqualError(t, err, `sse: Replicas[1] "ftp://c": scheme "ftp" is not https`)
}
