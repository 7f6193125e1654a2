package gorilla

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/endpoint"
	"github.com/redial-go/redial/internal/redact"
)

func TestClassify(t *testing.T) {
	hs := func(code int, ra time.Duration) error {
		return redact.Scrubbed("dial", &HandshakeError{StatusCode: code, RetryAfter: ra})
	}
	closed := func(code int, reason string) error {
		return fmt.Errorf("read: %w", &websocket.CloseError{Code: code, Text: reason})
	}
	cases := []struct {
		name      string
		err       error
		permanent bool
		hintMin   time.Duration
		hintMax   time.Duration
	}{
		{"401", hs(401, 0), true, 0, 0},
		{"403", hs(403, 0), true, 0, 0},
		{"404", hs(404, 0), true, 0, 0},
		{"503 Retry-After", hs(503, 7*time.Second), false, 7 * time.Second, 7 * time.Second},
		{"429 Retry-After", hs(429, 7*time.Second), false, 7 * time.Second, 7 * time.Second},
		{"503 without", hs(503, 0), false, 0, 0},
		{"500", hs(500, 0), false, 0, 0},
		{"close 1008", closed(1008, "bad token"), true, 0, 0},
		{"close 1013", closed(1013, ""), false, DefaultCloseHint, DefaultCloseHint * 3 / 2},
		{"close 1012", closed(1012, "restart"), false, DefaultCloseHint, DefaultCloseHint * 3 / 2},
		{"close 1013 reason", closed(1013, "retry-after=42"), false, 42 * time.Second, 42 * time.Second},
		{"close 1000", closed(1000, ""), false, 0, 0},
		{"close 1001", closed(1001, ""), false, 0, 0},
		{"close 1006", closed(1006, "unexpected EOF"), false, 0, 0},
		{"close 1011", closed(1011, ""), false, 0, 0},
		{"EOF", errors.New("EOF"), false, 0, 0},
		{"already permanent", backoff.Permanent(closed(1013, "")), true, 0, 0},
		{"already hinted", backoff.RetryAfter(closed(1008, ""), time.Second), false, time.Second, time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Classify(tc.err)
			assert.ErrorIs(t, got, tc.err, "the chain is kept")
			assert.Equal(t, tc.err.Error(), got.Error(), "the text is kept")
			assert.Equal(t, tc.permanent, backoff.IsPermanent(got))
			h, _ := backoff.RetryAfterHint(got)
			assert.GreaterOrEqual(t, h, tc.hintMin)
			if tc.hintMax == tc.hintMin {
				assert.Equal(t, tc.hintMin, h)
			} else {
				assert.Less(t, h, tc.hintMax)
			}
		})
	}
	assert.NoError(t, Classify(nil))
	assert.Equal(t, 1013, CloseStatus(closed(1013, "")))
	assert.Equal(t, -1, CloseStatus(errors.New("EOF")))
}

// With BeforeConnect, 401 and 403 are ordinary retries (the next attempt
// may carry new credentials); 404 and the rest keep their classes.
func TestClassifyWithBeforeConnect(t *testing.T) {
	hint := func() time.Duration { return time.Second }
	for code, permanent := range map[int]bool{401: false, 403: false, 404: true} {
		err := redact.Scrubbed("dial", &HandshakeError{StatusCode: code})
		assert.Equal(t, permanent, backoff.IsPermanent(classify(err, hint, true)), "%d", code)
	}
	d, ok := backoff.RetryAfterHint(classify(&HandshakeError{StatusCode: 503, RetryAfter: 3 * time.Second}, hint, true))
	assert.True(t, ok)
	assert.Equal(t, 3*time.Second, d)
}

func TestSpreadStaysInItsRange(t *testing.T) {
	c, err := newConnector("ws://h/x", Options{CloseHint: 4 * time.Second})
	require.NoError(t, err)
	seen := map[time.Duration]bool{}
	for range 1000 {
		d := c.spreadCloseHint()
		assert.GreaterOrEqual(t, d, 4*time.Second)
		assert.Less(t, d, 6*time.Second)
		seen[d] = true
	}
	assert.Greater(t, len(seen), 900, "the hint is spread, not one value for the whole fleet")
}

func TestConnectorFindsSecrets(t *testing.T) {
	c, err := newConnector("wss://u:p%40ss@h:1/x?token=T1xx&api_key=K2xx&jwt=J3xx&room=r&code=C5xx",
		Options{PublicQuery: []string{"room"}, Header: http.Header{"Authorization": {"Bearer H6xx"}}})
	assert.NoError(t, err)
	assert.Equal(t, "wss://xxxxx@h:1/x?token=xxxxx&api_key=xxxxx&jwt=xxxxx&room=r&code=xxxxx", c.set.URLs[0].Shown, "the whole userinfo and every non-public value are masked")
	assert.Equal(t, "token xxxxx, xxxxx, xxxxx, xxxxx and xxxxx", c.set.Base.Text("token T1xx, J3xx, C5xx, Bearer H6xx and p@ss"))
}

// gorilla's Dialer refuses userinfo: it is sent as Basic authorization, as
// net/http does, and that header's value is a secret too. A program's own
// Authorization wins.
func TestUserinfoBecomesBasicAuthorization(t *testing.T) {
	c, err := newConnector("ws://alice:PW-s3cret@h:1/x?room=r", Options{PublicQuery: []string{"room"}})
	require.NoError(t, err)
	req := c.fixed[0]
	assert.Equal(t, "ws://h:1/x?room=r", req.url, "no userinfo in what is dialed")
	auth := req.header.Get("Authorization")
	assert.Equal(t, "Basic YWxpY2U6UFctczNjcmV0", auth)
	assert.Equal(t, "auth xxxxx", req.secrets.Text("auth "+auth))
	assert.Equal(t, "auth xxxxx", req.secrets.Text("auth YWxpY2U6UFctczNjcmV0"))

	c, err = newConnector("ws://alice:PW-s3cret@h:1/x", Options{Header: http.Header{"Authorization": {"Bearer H6xx"}}})
	require.NoError(t, err)
	assert.Equal(t, "Bearer H6xx", c.fixed[0].header.Get("Authorization"))
	assert.Equal(t, "ws://h:1/x", c.fixed[0].url)
}

// An attempt's redactor knows what BeforeConnect set, and every
// endpoint's and Header's secrets still.
func TestAttemptRedactorKnowsEveryTarget(t *testing.T) {
	c, err := newConnector("ws://h:1/x?token=OLD-t0ken", Options{Header: http.Header{"X-Key": {"K3y-value"}}, Replicas: []string{"ws://r:1/x?token=REPL-t0ken"}})
	require.NoError(t, err)
	u, _ := url.Parse("ws://h:1/x?token=NEW-t0ken")
	h := http.Header{"Authorization": {"Bearer R0tated"}, "X-Key": {"K3y-value"}}
	tg, err := endpoint.Parse("gorilla", "url", u.String(), schemes, nil, h)
	require.NoError(t, err)
	req := c.request(tg.Parsed, h, c.set.Base.Join(tg.Secrets))
	assert.Equal(t, "xxxxx xxxxx xxxxx xxxxx xxxxx xxxxx", req.secrets.Text("OLD-t0ken NEW-t0ken REPL-t0ken Bearer R0tated R0tated K3y-value"))
	assert.NotContains(t, req.secrets.Text("dial ws://h:1/x?token=NEW-t0ken"), "NEW-t0ken")
}

// Close returns only after the WriteOnly reader ended: nothing of the
// connection outlives it.
func TestCloseWaitsForTheWriteOnlyReader(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		for {
			if _, _, err := c.ReadMessage(); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	c, err := newConnector("ws"+strings.TrimPrefix(srv.URL, "http"), Options{WriteOnly: true})
	require.NoError(t, err)
	for i := range 20 {
		conn, err := c.Connect(t.Context())
		require.NoError(t, err)
		st := stateOf(conn)
		require.NotNil(t, st)
		if i%2 == 1 {
			st.fail(nil) // dropped at once, without the close frame the reader would wait for
		}
		require.NoError(t, c.Close(conn))
		select {
		case <-st.readDone:
		default:
			t.Fatal("the reader still runs after Close returned")
		}
		assert.Nil(t, stateOf(conn), "Close forgets the connection")
	}
}
