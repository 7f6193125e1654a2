package httpcore_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/httpcore"
	"github.com/redial-go/redial/internal/redact"
	"github.com/redial-go/redial/supervisor"
)

// coreOf returns the Core of a lines supervisor for url.
func coreOf(t *testing.T, url string, cfg httpcore.Config) *httpcore.Core {
	t.Helper()
	var c *httpcore.Core
	cfg.URL = url
	_, err := httpcore.New(&linesSpec, cfg, supervisor.Options[*conn]{}, func(core *httpcore.Core) (httpcore.Library[*conn], error) {
		c = core
		return &lines{core}, nil
	})
	require.NoError(t, err)
	return c
}

// refused is an attempt's error for a refusal with status code.
func refused(t *testing.T, code int, header ...string) error {
	t.Helper()
	srv := serve(t, refuse(code, header...))
	s := mustLines(t, srv.URL, httpcore.Config{}, supervisor.Options[*conn]{Settings: supervisor.Settings{MaxAttempts: 1}})
	_ = s.Run(t.Context())
	he, ok := errors.AsType[*httpcore.HandshakeError](s.Err())
	require.True(t, ok, "%v", s.Err())
	return redact.Scrubbed("get: "+he.Error(), he)
}

func TestClassify(t *testing.T) {
	closed := func(code int, reason string) error { return fmt.Errorf("read: %w", &closeError{code, reason}) }
	hint := httpcore.DefaultCloseHint
	for _, tc := range []struct {
		name              string
		err               error
		permanent, rotate bool // without BeforeConnect; with it
		hintMin, hintMax  time.Duration
	}{
		{"200 not the stream", refused(t, 200), true, true, 0, 0},
		{"204", refused(t, 204), true, true, 0, 0},
		{"401", refused(t, 401), true, false, 0, 0},
		{"403", refused(t, 403), true, false, 0, 0},
		{"404", refused(t, 404), true, true, 0, 0},
		{"503 Retry-After", refused(t, 503, "Retry-After", "7"), false, false, 7 * time.Second, 8 * time.Second}, // spread over its second
		{"429 Retry-After", refused(t, 429, "Retry-After", "7"), false, false, 7 * time.Second, 8 * time.Second},
		{"503 without", refused(t, 503), false, false, 0, 0},
		{"500", refused(t, 500), false, false, 0, 0},
		{"close 1008", closed(1008, "bad token"), true, false, 0, 0},
		{"close 1013", closed(1013, ""), false, false, hint, hint * 3 / 2},
		{"close 1012", closed(1012, "restart"), false, false, hint, hint * 3 / 2},
		{"close 1013 reason", closed(1013, "retry-after=42"), false, false, 42 * time.Second, 43 * time.Second},
		{"close 1000", closed(1000, ""), false, false, 0, 0},
		{"close 1011", closed(1011, ""), false, false, 0, 0},
		{"EOF", errors.New("EOF"), false, false, 0, 0},
		{"already permanent", backoff.Permanent(closed(1013, "")), true, true, 0, 0},
		{"already hinted", backoff.RetryAfter(closed(1008, ""), time.Second), false, false, time.Second, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain := coreOf(t, "http://h/x", httpcore.Config{})
			rotating := coreOf(t, "http://h/x", httpcore.Config{BeforeConnect: func(context.Context, *url.URL, http.Header) error { return nil }})
			for _, c := range []struct {
				what      string
				classify  func(error) error
				permanent bool
			}{{"Spec", linesSpec.Classify, tc.permanent}, {"Core", plain.Classify, tc.permanent}, {"rotating", rotating.Classify, tc.rotate}} {
				got := c.classify(tc.err)
				assert.ErrorIs(t, got, tc.err, "%s: the chain is kept", c.what)
				assert.Equal(t, tc.err.Error(), got.Error(), "%s: the text is kept", c.what)
				assert.Equal(t, c.permanent, backoff.IsPermanent(got), c.what)
				h, _ := backoff.RetryAfterHint(got)
				assert.GreaterOrEqual(t, h, tc.hintMin, c.what)
				if tc.hintMax == tc.hintMin {
					assert.Equal(t, tc.hintMin, h, c.what)
				} else {
					assert.Less(t, h, tc.hintMax, c.what)
				}
			}
		})
	}
	assert.NoError(t, linesSpec.Classify(nil))
}

func TestCloseHintIsSpread(t *testing.T) {
	c := coreOf(t, "http://h/x", httpcore.Config{CloseHint: 4 * time.Second})
	seen := map[time.Duration]bool{}
	for range 1000 {
		d, _ := backoff.RetryAfterHint(c.Classify(&closeError{1013, ""}))
		assert.GreaterOrEqual(t, d, 4*time.Second)
		assert.Less(t, d, 6*time.Second)
		seen[d] = true
	}
	assert.Greater(t, len(seen), 900, "the hint is spread, not one value for the whole fleet")
}
