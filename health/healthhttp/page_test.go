package healthhttp_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/health/healthhttp"
)

// historied is a Source with a History.
type historied struct {
	st health.Status
	h  []health.Transition
}

func (s historied) Status() health.Status        { return s.st }
func (s historied) History() []health.Transition { return s.h }

func pageRegistry() *health.Registry {
	at := time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)
	var r health.Registry
	r.Add("feed", historied{
		st: health.Status{State: health.Backoff, Since: at, ConsecutiveFailures: 2, NextAttempt: at.Add(3 * time.Second),
			Err: errors.New("dial wss://u:hunter22@h/x: refused </script><script>alert(1)</script>"), LastFailure: at, Endpoint: "wss://h/x", ReconnectsLastMinute: 4},
		h: []health.Transition{
			{At: at.Add(-time.Second), From: health.Connected, To: health.Backoff, ConsecutiveFailures: 1, Delay: time.Second, Reason: "backoff", Err: errors.New("lost: token=abc123")},
			{At: at, From: health.Connecting, To: health.Backoff, ConsecutiveFailures: 2, Delay: 3 * time.Second, Reason: "backoff"},
		},
	}, health.SourceOptions{Critical: true})
	r.Add("cache", health.SourceFunc(func() health.Status { return health.Status{State: health.Connected, Since: at} }), health.SourceOptions{})
	return &r
}

func TestStatusPageIsSelfContainedAndAllowedByItsCSP(t *testing.T) {
	rec := httptest.NewRecorder()
	healthhttp.StatusPage(pageRegistry(), healthhttp.StatusPageOptions{}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/status", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "text/html; charset=utf-8", rec.Header().Get("Content-Type"))
	page := rec.Body.String()
	csp := rec.Header().Get("Content-Security-Policy")
	require.Contains(t, csp, "default-src 'none'")

	// Every inline script and style is allowed by its hash, and nothing else.
	for _, m := range regexp.MustCompile(`(?s)<(script|style)>(.*?)</(?:script|style)>`).FindAllStringSubmatch(page, -1) {
		sum := sha256.Sum256([]byte(m[2]))
		assert.Contains(t, csp, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'", "the inline %s is not in the CSP", m[1])
	}
	// No outside assets.
	for _, bad := range []string{" src=", " href=", "@import", "url("} {
		assert.NotContains(t, page, bad)
	}
	assert.NotContains(t, strings.ReplaceAll(page, "http://www.w3.org/2000/svg", ""), "http", "no outside URL but the SVG namespace")
	// Without Verbose it shows no error text, as the readiness body does not.
	assert.NotContains(t, page, "refused")
	assert.NotContains(t, page, "hunter22")
}

func TestStatusPageJSON(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		rec := httptest.NewRecorder()
		healthhttp.StatusPage(pageRegistry(), healthhttp.StatusPageOptions{Verbose: verbose}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/status?format=json", nil))
		require.Equal(t, http.StatusOK, rec.Code)
		assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
		raw, _ := io.ReadAll(rec.Body)
		var snap struct {
			Ready   bool `json:"ready"`
			Sources []struct {
				Name, State, Endpoint, LastError string
				NextAttempt                      *time.Time `json:"next_attempt"`
				Reconnects                       int        `json:"reconnects_last_minute"`
				Err                              string     `json:"last_error"`
				History                          []struct {
					To, Reason, Err string
				}
			}
		}
		require.NoError(t, json.Unmarshal(raw, &snap), string(raw))
		assert.False(t, snap.Ready)
		require.Len(t, snap.Sources, 2)
		feed := snap.Sources[0]
		assert.Equal(t, "backoff", feed.State)
		assert.Equal(t, "wss://h/x", feed.Endpoint)
		assert.Equal(t, 4, feed.Reconnects)
		require.NotNil(t, feed.NextAttempt)
		require.Len(t, feed.History, 2)
		assert.Equal(t, "backoff", feed.History[0].Reason)
		assert.NotContains(t, string(raw), "hunter22")
		assert.NotContains(t, string(raw), "abc123")
		if verbose {
			assert.Contains(t, feed.Err, "refused", "Verbose shows the last error")
			assert.Contains(t, feed.History[0].Err, "token=xxxxx")
		} else {
			assert.Empty(t, feed.Err)
			assert.NotContains(t, string(raw), "refused")
			assert.Empty(t, feed.History[0].Err)
		}
		assert.Empty(t, snap.Sources[1].History, "a source without History has none")
	}
}

func TestStatusPageEscapesTheData(t *testing.T) {
	rec := httptest.NewRecorder()
	healthhttp.StatusPage(pageRegistry(), healthhttp.StatusPageOptions{Verbose: true, Title: "<b>shop</b>"}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/status", nil))
	page := rec.Body.String()
	assert.NotContains(t, page, "<script>alert(1)</script>", "error text cannot end the data block")
	assert.NotContains(t, page, "<b>shop</b>")
	assert.Contains(t, page, "&lt;b&gt;shop&lt;/b&gt;")
	m := regexp.MustCompile(`(?s)<script type="application/json" id="data">(.*?)</script>`).FindStringSubmatch(page)
	require.NotNil(t, m)
	var v map[string]any
	assert.NoError(t, json.Unmarshal([]byte(m[1]), &v), "the data block is JSON")
}

// TestStatusPageShowsLag: the page's data carries a feed's lag and whether
// it is over its MaxLag, and the page has a column for it.
func TestStatusPageShowsLag(t *testing.T) {
	var r health.Registry
	r.Add("feed", lagSource{health.Lag{Waiting: 64, Oldest: 3200 * time.Millisecond}}, health.SourceOptions{Critical: true, MaxLag: time.Second})
	page := healthhttp.StatusPage(&r, healthhttp.StatusPageOptions{})
	rec := httptest.NewRecorder()
	page.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/status?format=json", nil))
	var snap struct {
		Ready   bool `json:"ready"`
		Sources []struct {
			Lag struct {
				Waiting int     `json:"waiting"`
				Oldest  float64 `json:"oldest_seconds"`
			} `json:"lag"`
			Lagging bool `json:"lagging"`
		} `json:"sources"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &snap), rec.Body.String())
	assert.False(t, snap.Ready, "3.2s behind a MaxLag of 1s")
	require.Len(t, snap.Sources, 1)
	assert.Equal(t, 64, snap.Sources[0].Lag.Waiting)
	assert.InDelta(t, 3.2, snap.Sources[0].Lag.Oldest, 1e-9)
	assert.True(t, snap.Sources[0].Lagging)
	rec = httptest.NewRecorder()
	page.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/status", nil))
	assert.Contains(t, rec.Body.String(), "<th>lag</th>")
}
