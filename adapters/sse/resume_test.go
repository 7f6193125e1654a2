package sse_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/sse"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// historyServer keeps events 1..5 and sends each request those after its
// Last-Event-ID. The first request sends event 1, waits until it was
// delivered, sends 2..5 and ends the stream; later ones stay open.
func historyServer(t *testing.T, delivered <-chan struct{}) *server {
	return serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
		from, _ := strconv.Atoi(r.Header.Get("Last-Event-ID"))
		stream(w)
		for i := from + 1; i <= 5; i++ {
			send(w, strconv.Itoa(i), "event "+strconv.Itoa(i))
			if n == 1 && i == 1 {
				<-delivered
			}
		}
		if n > 1 {
			<-r.Context().Done()
		}
	})
}

// TestReadAheadEventsComeBeforeTheBreak: the Client has read events 2..5
// ahead of a program still busy with event 1 when the stream ends. The
// program gets them, then the break, in the server's order, and the next
// request resumes after 5, the last event read: none lost, none twice.
func TestReadAheadEventsComeBeforeTheBreak(t *testing.T) {
	delivered := make(chan struct{})
	srv := historyServer(t, delivered)
	o := testOptions()
	o.Buffer = 8
	ready := make(chan *client, 1)
	first := true
	c := start(t, srv.URL+"/events", o, func(g got) {
		if first { // busy with event 1 until the stream has broken
			first = false
			c := <-ready
			close(delivered)
			testkit.WaitStatus(t, c, 5*time.Second, "the loss", func(st health.Status) bool { return st.State != health.Connected })
		}
	})
	ready <- c
	var seq []string
	for len(seq) < 6 {
		g := c.next(t, 5*time.Second)
		if g.err != nil {
			seq = append(seq, "error")
			assert.ErrorContains(t, g.err, "sse: read: the server ended the stream (EOF)")
			continue
		}
		seq = append(seq, g.ev.ID)
		assert.Equal(t, "event "+g.ev.ID, g.ev.Data)
	}
	assert.Equal(t, []string{"1", "2", "3", "4", "5", "error"}, seq)
	testkit.WaitStatus(t, c, 5*time.Second, "the second stream", testkit.Connected(2))
	assert.Empty(t, srv.request(1).Header.Get("Last-Event-ID"))
	assert.Equal(t, "5", srv.request(2).Header.Get("Last-Event-ID"), "resumes after the last event read")
	assert.Equal(t, "5", c.LastEventID())
	require.NoError(t, c.stop())
}

// TestEveryReconnectSendsTheLastDeliveredID: a server that ends every
// stream once its one event was delivered; each request carries the id
// of the event before.
func TestEveryReconnectSendsTheLastDeliveredID(t *testing.T) {
	delivered := make(chan struct{}, 1)
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
		stream(w)
		if n > 4 {
			<-r.Context().Done()
			return
		}
		send(w, "id-"+strconv.Itoa(n), "x")
		select {
		case <-delivered:
		case <-r.Context().Done():
		}
	})
	c := start(t, srv.URL+"/events", testOptions(), func(g got) {
		if g.err == nil {
			delivered <- struct{}{}
		}
	})
	testkit.WaitStatus(t, c, 5*time.Second, "the fifth stream", testkit.Connected(5))
	for n := 2; n <= 5; n++ {
		assert.Equal(t, "id-"+strconv.Itoa(n-1), srv.request(n).Header.Get("Last-Event-ID"), "request %d", n)
	}
	require.NoError(t, c.stop())
}

// TestEmptyIDResetsThePosition: as EventSource's, an empty id field resets
// the last event id, on the stream that set one and on one resumed from
// it, where events without an id field carry the resumed id (a body that
// starts with a BOM too): a reset event has no ID, and the next request
// sends no Last-Event-ID. Each stream ends once its events were delivered.
func TestEmptyIDResetsThePosition(t *testing.T) {
	delivered := make(chan struct{}, 5)
	streams := []string{
		"id: 7\ndata: a\n\nid\ndata: b\n\n", // a field name alone: an empty value
		"id: 8\ndata: c\n\n",
		"\xef\xbb\xbfdata: d\n\n",
		"id:\ndata: e\n\n",
	}
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
		stream(w)
		if n > len(streams) {
			<-r.Context().Done()
			return
		}
		fmt.Fprint(w, streams[n-1])
		w.(http.Flusher).Flush()
		for range strings.Count(streams[n-1], "data") {
			select {
			case <-delivered:
			case <-r.Context().Done():
				return
			}
		}
	})
	c := start(t, srv.URL+"/events", testOptions(), func(g got) {
		if g.err == nil {
			delivered <- struct{}{}
		}
	})
	var evs []sse.Event
	for len(evs) < 5 {
		if g := c.next(t, 5*time.Second); g.err == nil {
			evs = append(evs, g.ev)
		}
	}
	testkit.WaitStatus(t, c, 5*time.Second, "the fifth stream", testkit.Connected(5))
	assert.Equal(t, []sse.Event{{ID: "7", Data: "a"}, {Data: "b"}, {ID: "8", Data: "c"}, {ID: "8", Data: "d"}, {Data: "e"}}, evs)
	assert.Empty(t, srv.request(2).Header.Values("Last-Event-ID"), "none after a reset")
	assert.Equal(t, "8", srv.request(3).Header.Get("Last-Event-ID"))
	assert.Equal(t, "8", srv.request(4).Header.Get("Last-Event-ID"), "an event without an id keeps it")
	assert.Empty(t, srv.request(5).Header.Values("Last-Event-ID"), "none after a reset on a resumed stream")
	assert.Empty(t, c.LastEventID())
	require.NoError(t, c.stop())
}
