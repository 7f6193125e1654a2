package statuspage

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// pageRow is what the page's DOM shows for the feed.
type pageRow struct {
	Found     bool     `json:"found"`
	State     string   `json:"state"`     // the row's data-state
	Pill      string   `json:"pill"`      // the text of span.pill.state
	PillClass string   `json:"pillClass"` // its class attribute
	Next      string   `json:"next"`      // td.next: the countdown
	Attempts  string   `json:"attempts"`
	Err       string   `json:"err"`
	Rects     []string `json:"rects"` // the classes of the timeline's rects
}

// rowJS reads the feed's row from the DOM.
const rowJS = `(() => {
  const r = document.querySelector('tr[data-name="feed"]');
  if (!r) return {found: false, rects: []};
  const text = (sel) => { const e = r.querySelector(sel); return e ? e.textContent : ""; };
  const pill = r.querySelector("span.pill.state");
  return {
    found: true,
    state: r.getAttribute("data-state") || "",
    pill: pill ? pill.textContent : "",
    pillClass: pill ? pill.getAttribute("class") : "",
    next: text("td.next"),
    attempts: text("td.attempts"),
    err: text("td.err"),
    rects: Array.from(r.querySelectorAll("td.timeline svg rect"), (x) => x.getAttribute("class") || ""),
  };
})()`

// readRow reads the feed's row once.
func readRow(t *testing.T, ctx context.Context) pageRow {
	t.Helper()
	r, err := chromedp.Run(ctx, chromedp.Evaluate[pageRow](rowJS))
	require.NoError(t, err)
	return r
}

// waitRow reads the row every 20ms until ok says yes, and fails the test
// when that takes longer than within from since. It returns the row and
// how long after since it was seen.
func waitRow(t *testing.T, ctx context.Context, what string, since time.Time, within time.Duration, ok func(pageRow) bool) (pageRow, time.Duration) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		r := readRow(t, ctx)
		took := time.Since(since)
		if ok(r) {
			return r, took
		}
		if took > within {
			t.Fatalf("the page did not show %s within %v; the feed's row is %+v", what, within, r)
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		}
	}
}

// inState is ok for a row in one of states.
func inState(states ...string) func(pageRow) bool {
	return func(r pageRow) bool { return r.Found && slices.Contains(states, r.State) }
}
