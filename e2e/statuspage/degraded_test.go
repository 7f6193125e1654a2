package statuspage

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/health/healthhttp"
)

// blocked is a Connected health.DegradedSource, as an amqp Client is while
// the broker blocks publishing; its reason holds a password.
type blocked struct{}

func (blocked) Status() health.Status {
	return health.Status{State: health.Connected, Since: time.Now()}
}
func (blocked) Degraded() error {
	return errors.New("broker blocks publishing: low on memory (amqp://app:s3cr3t@rabbit:5672/)")
}

// TestStatusPageShowsDegradedInBrowser: a connected source that is
// degraded shows as such beside its state, with its reason redacted, and
// the program not ready.
func TestStatusPageShowsDegradedInBrowser(t *testing.T) {
	var reg health.Registry
	reg.Add("broker", blocked{}, health.SourceOptions{Critical: true})
	page := httptest.NewServer(healthhttp.StatusPage(&reg, healthhttp.StatusPageOptions{Verbose: true}))
	defer page.Close()
	tab, _ := newBrowser(t)
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(page.URL)))
	type stateCell struct {
		Text    string `json:"text"`
		State   string `json:"state"`
		Overall string `json:"overall"`
	}
	var cell stateCell
	var err error
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(cell.Text, "degraded"); <-tick.C {
		require.True(t, time.Now().Before(deadline), "the page did not show degraded: %+v", cell)
		cell, err = chromedp.Run(tab, chromedp.Evaluate[stateCell](`(() => {
			const r = document.querySelector('tr[data-name="broker"]'), td = r && r.querySelector("span.degraded");
			return {text: td ? td.parentElement.textContent : "", state: r ? r.dataset.state : "",
				overall: document.getElementById("overall").textContent};
		})()`))
		require.NoError(t, err)
	}
	t.Logf("the page shows %q, %s", cell.Text, cell.Overall)
	assert.Equal(t, "not ready", cell.Overall)
	assert.Equal(t, "connected", cell.State)
	assert.Contains(t, cell.Text, "broker blocks publishing: low on memory")
	assert.NotContains(t, cell.Text, "s3cr3t")
}
