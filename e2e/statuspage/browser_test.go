package statuspage

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const chromium = "/usr/bin/chromium"

// browserLog is what the tab did that the test checks afterwards: every
// request it sent, and every Content-Security-Policy violation and
// uncaught exception the browser reported.
type browserLog struct {
	mu       sync.Mutex
	requests []string
	problems []string // CSP violations from the browser log, exceptions
	other    []string // the rest of the browser log and console, for the test log
}

// listen runs in the tab's event loop: it must return at once.
func (l *browserLog) listen(ev any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		l.requests = append(l.requests, ev.Request.URL)
	case *log.EventEntryAdded:
		text := string(ev.Entry.Source) + " " + string(ev.Entry.Level) + ": " + ev.Entry.Text
		if strings.Contains(ev.Entry.Text, "Content Security Policy") {
			l.problems = append(l.problems, text)
		} else {
			l.other = append(l.other, text)
		}
	case *runtime.EventExceptionThrown:
		text := ev.ExceptionDetails.Text
		if ev.ExceptionDetails.Exception != nil {
			text += " " + ev.ExceptionDetails.Exception.Description
		}
		l.problems = append(l.problems, "exception: "+text)
	case *runtime.EventConsoleAPICalled:
		var args []string
		for _, a := range ev.Args {
			args = append(args, a.Description+string(a.Value))
		}
		text := "console." + string(ev.Type) + ": " + strings.Join(args, " ")
		if strings.Contains(text, "Content Security Policy") {
			l.problems = append(l.problems, text)
		} else {
			l.other = append(l.other, text)
		}
	}
}

// sent returns the URLs of the requests the tab sent, in order.
func (l *browserLog) sent() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.requests...)
}

func (l *browserLog) reported() (problems, other []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.problems...), append([]string(nil), l.other...)
}

// violationsJS runs in every document before the page's own script and
// keeps the page's securitypolicyviolation events: a second witness of
// the CSP, besides the browser log. Scripts the DevTools protocol adds
// are not subject to the page's CSP.
const violationsJS = `window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__cspViolations.push(e.violatedDirective + " blocked " + (e.blockedURI || "inline") + " at " + e.sourceFile + ":" + e.lineNumber);
});`

// newBrowser starts headless Chromium with a new empty profile and opens
// a tab whose events go to the returned log. Chromium is closed, and
// waited for, when the test ends.
func newBrowser(t *testing.T) (context.Context, *browserLog) {
	t.Helper()
	_, err := os.Stat(chromium)
	require.NoError(t, err, "the status page test needs Debian's chromium (apt-get install chromium; .ci/run installs it)")
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.Headless,
		chromedp.NoSandbox, // root in a container
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		// This machine's network is closed: without these Chromium tries
		// Google's hosts at every start.
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 400),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc) // waits for the browser to exit
	bl := &browserLog{}
	ctx, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithListener(bl.listen))
	t.Cleanup(cancelTab)
	require.NoError(t, chromedp.Do(ctx), "starting %s", chromium)
	_, err = chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: violationsJS})
	require.NoError(t, err)
	t.Cleanup(func() { bl.checkPolicy(t, ctx) }) // before the tab closes, also when the test failed early
	return ctx, bl
}

// checkPolicy fails the test when the page broke a rule of its CSP or
// threw, as the page's securitypolicyviolation events or the browser's
// log tell, and logs the browser's other messages.
func (l *browserLog) checkPolicy(t *testing.T, ctx context.Context) {
	violations, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__cspViolations`))
	if assert.NoError(t, err, "the test's securitypolicyviolation listener is in the page") {
		assert.Empty(t, violations, "securitypolicyviolation events in the page")
	}
	problems, other := l.reported()
	assert.Empty(t, problems, "CSP violations and exceptions in the browser's log")
	for _, m := range other {
		t.Logf("browser: %s", m)
	}
}
