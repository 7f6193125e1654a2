// Package statuspage tests healthhttp's status page in a real browser: it
// runs examples/demo against a WebSocket feed that the test stops and
// starts, opens the demo's /status page in headless Chromium (Debian's
// chromium, driven by chromedp) and reads the page's DOM while the feed
// goes away and comes back. It also checks that the page loads nothing
// from elsewhere and works under its own Content-Security-Policy.
//
//	go test ./statuspage/ -statuspage.screenshot=$PWD/../../docs/status-page.png
//
// regenerates the screenshot in the docs.
package statuspage
