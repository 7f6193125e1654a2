package statuspage

import (
	"bytes"
	"image/png"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var countdown = regexp.MustCompile(`^in \d+\.\ds$`)

// TestStatusPageInBrowser opens the demo's status page in headless
// Chromium and follows the feed's row while the test stops its feed and
// starts it again: connected, then backoff (or connecting) within 2s of
// the server going away, with a countdown to the next attempt, then
// connected again. The page must load nothing from elsewhere and break
// no rule of its own Content-Security-Policy.
func TestStatusPageInBrowser(t *testing.T) {
	feed := startTicks(t)
	statusURL := startDemo(t, buildDemo(t), feed.URL())
	pageURL, err := url.Parse(statusURL)
	require.NoError(t, err)
	ctx, browser := newBrowser(t)

	opened := time.Now()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(statusURL)))
	r, took := waitRow(t, ctx, "the feed connected", opened, 10*time.Second, inState("connected"))
	t.Logf("page opened: the feed's row is connected after %v", took.Round(time.Millisecond))
	checkPill(t, r)
	assert.Equal(t, "—", r.Next, "no next attempt while connected")
	assert.NotEmpty(t, r.Rects, "the timeline has the feed's first transitions")

	feed.stop()
	gone := time.Now()
	r, took = waitRow(t, ctx, "backoff or connecting after the feed went away", gone, 2*time.Second, inState("backoff", "connecting"))
	t.Logf("connected -> %s in the browser %v after the feed went away", r.State, took.Round(time.Millisecond))
	checkPill(t, r)

	r, took = waitRow(t, ctx, "backoff with a countdown", gone, 10*time.Second, func(r pageRow) bool {
		return r.State == "backoff" && countdown.MatchString(r.Next)
	})
	t.Logf("backoff, next attempt %q, attempts %s, last error %q (%v after the feed went away)", r.Next, r.Attempts, r.Err, took.Round(time.Millisecond))
	checkPill(t, r)
	assert.NotEqual(t, "—", r.Err, "the demo's page is Verbose: it shows the last error")
	assert.Contains(t, r.Rects, "backoff", "the timeline shows the backoff")

	require.NoError(t, feed.start())
	back := time.Now()
	r, took = waitRow(t, ctx, "connected again after the feed came back", back, 10*time.Second, inState("connected"))
	t.Logf("backoff -> connected in the browser %v after the feed came back", took.Round(time.Millisecond))
	checkPill(t, r)
	assert.Equal(t, "—", r.Next)
	assert.GreaterOrEqual(t, len(r.Rects), 4, "connecting, connected, backoff, ..., connected: %v", r.Rects)
	assert.Equal(t, "connected", r.Rects[len(r.Rects)-1], "the timeline ends connected: %v", r.Rects)

	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100: PNG
	require.NoError(t, err)
	img, err := png.DecodeConfig(bytes.NewReader(shot))
	require.NoError(t, err, "the screenshot is a PNG")
	assert.Positive(t, img.Width*img.Height)
	if *screenshotPath != "" {
		require.NoError(t, os.WriteFile(*screenshotPath, shot, 0o644))
		t.Logf("screenshot (%dx%d) written to %s", img.Width, img.Height, *screenshotPath)
	}

	// Nothing from elsewhere (newBrowser's cleanup checks the CSP).
	sent := browser.sent()
	var foreign []string
	loads, polls := 0, 0
	for _, s := range sent {
		u, err := url.Parse(s)
		switch {
		case err != nil || u.Scheme != pageURL.Scheme || u.Host != pageURL.Host:
			foreign = append(foreign, s)
		case s == statusURL:
			loads++
		case u.Path == pageURL.Path && u.RawQuery == "format=json":
			polls++
		}
	}
	assert.Empty(t, foreign, "the page loads nothing but from %s://%s", pageURL.Scheme, pageURL.Host)
	assert.Equal(t, 1, loads, "the page refreshes itself without reloading: %v", sent)
	assert.Positive(t, polls, "the page polls ?format=json: %v", sent)
	t.Logf("%d requests: the page %d, polls of ?format=json %d, elsewhere %d", len(sent), loads, polls, len(foreign))
}

// checkPill checks that the row's pill says its state in word and colour.
func checkPill(t *testing.T, r pageRow) {
	t.Helper()
	assert.Equal(t, r.State, r.Pill, "the pill says the row's state")
	assert.True(t, slices.Contains(strings.Fields(r.PillClass), r.State), "the pill has the state's colour class: %q", r.PillClass)
}
