package sse_test

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"testing"
	"time"

	"github.com/redial-go/redial/adapters/sse"
	"github.com/redial-go/redial/internal/testing/conformance"
	"github.com/redial-go/redial/redialtest"
	"github.com/redial-go/redial/supervisor"
)

// The harness: an event stream that sends one event, then a keep-alive
// comment every 100ms; CloseConns ends the stream.
// Its refusal for good is a 200 that is not an event stream, whose
// Content-Type echoes the request (sse shows a 200's Content-Type). The
// program reads with Events.
func TestConformance(t *testing.T) {
	const idle = time.Second
	redialtest.TestConnector(t, redialtest.Harness{
		Pkg: "sse",
		Start: func(t testing.TB) redialtest.Server {
			return conformance.StartHTTP(t, &conformance.HTTPServer{Handle: eventStream, ForGood: http.StatusOK})
		},
		New: func(t testing.TB, addr string, o redialtest.Options) (redialtest.Client, error) {
			url, header := conformance.Target(addr, o, "http", "/events")
			c, err := sse.New(url, sse.Options{
				Header:        header,
				BeforeConnect: conformance.BeforeConnect(o.BeforeConnect),
				IdleTimeout:   idle,
				Supervisor:    o.Settings,
			})
			if err != nil {
				return nil, err
			}
			return c, nil
		},
		Streams: []redialtest.Stream{{Name: "Events", Greets: true, Range: func(ctx context.Context, c redialtest.Client) iter.Seq2[any, error] {
			return redialtest.Seq2(c.(*sse.Client).Events(ctx))
		}}},
		Bad: []redialtest.Bad{
			{Field: "IdleTimeout", New: func() error { _, err := sse.New("http://h/", sse.Options{IdleTimeout: -1}); return err }},
			{Field: "Buffer", New: func() error { _, err := sse.New("http://h/", sse.Options{Buffer: -1}); return err }},
			{Field: "url", New: func() error { _, err := sse.New("ws://h/", sse.Options{}); return err }},
		},
		Refusal:  "not text/event-stream",
		Hook:     "BeforeConnect",
		Secrets:  true,
		Silent:   supervisor.ErrSilent,
		Liveness: idle,
		Skip: map[string]string{
			"secrets-closed":     "an event stream has no close reason: it ends without a text of the server's",
			"secrets-after-run":  "an event stream has no close handshake: once Run ended nothing of the server's reaches the client",
			"panic-on-connect":   noOnConnect,
			"timeout-on-connect": noOnConnect,
		},
	})
}

const noOnConnect = "sse has no OnConnect: its connection stays private (Options.Supervisor is a supervisor.Settings)"

// eventStream serves an event stream: one event, then a comment every 100ms.
func eventStream(w http.ResponseWriter, r *http.Request, closing <-chan struct{}) {
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	if _, err := fmt.Fprint(w, "id: 1\ndata: hello\n\n"); err != nil || rc.Flush() != nil {
		return
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-closing:
			return
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
		if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
			return
		}
	}
}
