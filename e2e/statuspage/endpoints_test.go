package statuspage

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/health/healthhttp"
)

// replicated is a Connected health.EndpointSource of three replicas: the
// preferred one ejected for a minute more, one healthy and in use, one
// probing; the first name holds a password.
type replicated struct{ until time.Time }

func (replicated) Status() health.Status {
	return health.Status{State: health.Connected, Since: time.Now(), Endpoint: "wss://b:443/feed"}
}
func (r replicated) Endpoints() []health.EndpointStatus {
	return []health.EndpointStatus{
		{Name: "wss://app:s3cr3t@a:443/feed", State: health.EndpointEjected, Preferred: true, ConsecutiveFailures: 3, Ejections: 1, EjectedUntil: r.until},
		{Name: "wss://b:443/feed"},
		{Name: "wss://c:443/feed", State: health.EndpointProbing, ConsecutiveFailures: 5, Ejections: 2},
	}
}

// TestStatusPageShowsEndpointRowsInBrowser: under a source with several
// endpoints the page has one row per endpoint with its state, failures
// in a row, when its ejection ends and which one is in use; names
// redacted.
func TestStatusPageShowsEndpointRowsInBrowser(t *testing.T) {
	var reg health.Registry
	reg.Add("feed", replicated{time.Now().Add(time.Minute)}, health.SourceOptions{Critical: true})
	page := httptest.NewServer(healthhttp.StatusPage(&reg, healthhttp.StatusPageOptions{}))
	defer page.Close()
	tab, _ := newBrowser(t)
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(page.URL)))
	type row struct {
		Name     string `json:"name"`
		State    string `json:"state"`
		Pill     string `json:"pill"`
		Failures string `json:"failures"`
		Next     string `json:"next"`
		InUse    string `json:"inUse"`
	}
	var rows []row
	var err error
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(10 * time.Second); len(rows) < 3; <-tick.C {
		require.True(t, time.Now().Before(deadline), "the page did not show the endpoint rows: %+v", rows)
		rows, err = chromedp.Run(tab, chromedp.Evaluate[[]row](`Array.from(document.querySelectorAll('tr.endpoint[data-source="feed"]'), (r) => ({
			name: r.querySelector("td.name").textContent, state: r.dataset.state,
			pill: r.querySelector("span.pill").textContent, failures: r.querySelector("td.attempts").textContent,
			next: r.querySelector("td.next").textContent, inUse: r.querySelector("td.endpoint").textContent}))`))
		require.NoError(t, err)
	}
	t.Logf("endpoint rows: %+v", rows)
	require.Len(t, rows, 3)
	assert.Equal(t, "ejected", rows[0].State)
	assert.Equal(t, "ejected", rows[0].Pill)
	assert.Contains(t, rows[0].Name, "(preferred)")
	assert.NotContains(t, rows[0].Name, "s3cr3t")
	assert.Equal(t, "3", rows[0].Failures)
	assert.Regexp(t, `^back in \d+\.\ds$`, rows[0].Next)
	assert.Equal(t, "healthy", rows[1].State)
	assert.Equal(t, "in use", rows[1].InUse)
	assert.Empty(t, rows[0].InUse)
	assert.Equal(t, "probing", rows[2].State)
	assert.Equal(t, "5", rows[2].Failures)
	assert.Equal(t, "—", rows[2].Next)
}
