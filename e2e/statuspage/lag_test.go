package statuspage

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/sse"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/health/healthhttp"
)

// TestStatusPageShowsLagInBrowser: an sse Client whose program took one
// event and is still busy with it, on a Registry with a MaxLag of 500ms:
// the page shows the feed connected, how many events wait and for how
// long, in red, and the program not ready.
func TestStatusPageShowsLagInBrowser(t *testing.T) {
	feed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 1; i <= 10; i++ {
			fmt.Fprintf(w, "id: %d\ndata: %d\n\n", i, i)
		}
		w.(http.Flusher).Flush()
		// A comment every second, as a live server sends: silent past the
		// Client's IdleTimeout (15s; a browser's start took that long
		// under load), the stream was renewed and 20 events waited.
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
				fmt.Fprint(w, ": alive\n\n")
				w.(http.Flusher).Flush()
			}
		}
	}))
	defer feed.Close()
	c, err := sse.New(feed.URL+"/events", sse.Options{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	runDone, loopDone, busy := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() { _ = c.Run(ctx); close(runDone) }()
	go func() {
		defer close(loopDone)
		for range c.Events(ctx) {
			select { // the program is busy with its first event until the test ends
			case <-busy:
			case <-ctx.Done():
			}
		}
	}()
	defer func() { cancel(); <-runDone; <-loopDone }()

	var reg health.Registry
	reg.Add("feed", c, health.SourceOptions{Critical: true, MaxLag: 500 * time.Millisecond})
	page := httptest.NewServer(healthhttp.StatusPage(&reg, healthhttp.StatusPageOptions{}))
	defer page.Close()
	tab, _ := newBrowser(t)
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(page.URL)))
	waiting := regexp.MustCompile(`^9 waiting, oldest \d+\.\ds$`)
	type lagCell struct {
		Text    string `json:"text"`
		Class   string `json:"class"`
		State   string `json:"state"`
		Overall string `json:"overall"`
	}
	var lag lagCell
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(10 * time.Second); !waiting.MatchString(lag.Text) || !strings.Contains(lag.Class, "lagging"); <-tick.C {
		require.True(t, time.Now().Before(deadline), "the page did not show the lag: %+v", lag)
		lag, err = chromedp.Run(tab, chromedp.Evaluate[lagCell](`(() => {
			const r = document.querySelector('tr[data-name="feed"]'), td = r && r.querySelector("td.lag");
			return {text: td ? td.textContent : "", class: td ? td.className : "", state: r ? r.dataset.state : "",
				overall: document.getElementById("overall").textContent};
		})()`))
		require.NoError(t, err)
	}
	t.Logf("the page shows %q (%s), %s, %s", lag.Text, lag.Class, lag.State, lag.Overall)
	assert.Equal(t, "not ready", lag.Overall)
	assert.Equal(t, "connected", lag.State, "lag is not a lost connection")
}
