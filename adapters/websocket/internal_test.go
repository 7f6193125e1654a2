package websocket

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/redact"
)

func TestClassify(t *testing.T) {
	hs := func(code int, ra time.Duration) error {
		return redact.Scrubbed("dial", &HandshakeError{StatusCode: code, RetryAfter: ra})
	}
	closed := func(code websocket.StatusCode, reason string) error {
		return fmt.Errorf("failed to get reader: received close frame: %w", websocket.CloseError{Code: code, Reason: reason})
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
	assert.Equal(t, "token xxxxx, xxxxx, xxxxx, xxxxx and xxxxx", c.secrets().Text("token T1xx, J3xx, C5xx, Bearer H6xx and p@ss"))
}
