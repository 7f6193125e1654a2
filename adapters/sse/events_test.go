package sse_test

import (
	"context"
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
	"github.com/redial-go/redial/supervisor"
)

// TestEventsEndsAfterStopped: ending Run ends the loop.
func TestEventsEndsAfterStopped(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
		stream(w)
		send(w, "1", "one")
		<-r.Context().Done()
	})
	c := start(t, srv.URL+"/events", testOptions(), nil)
	assert.Equal(t, "one", c.next(t, 5*time.Second).ev.Data)
	c.stopRun() // Run first; the loop ends by itself
	c.stopped = true
	assert.Empty(t, c.loopEnds(t, 5*time.Second))
	assert.NoError(t, c.Err())
	assert.Equal(t, health.Stopped, c.Status().State)
}

// TestEventsBreakLosesNothing: a loop that breaks and a later loop get
// every event between them, and the ctx of a loop ends it.
func TestEventsBreakLosesNothing(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
		stream(w)
		for _, id := range []string{"1", "2", "3"} {
			send(w, id, "event "+id)
		}
		<-r.Context().Done()
	})
	c, err := sse.New(srv.URL+"/events", testOptions())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = c.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	var ids []string
	for ev, err := range c.Events(ctx) {
		require.NoError(t, err)
		ids = append(ids, ev.ID)
		break
	}
	for ev, err := range c.Events(ctx) {
		require.NoError(t, err)
		if ids = append(ids, ev.ID); len(ids) == 3 {
			break
		}
	}
	assert.Equal(t, []string{"1", "2", "3"}, ids)
	assert.Equal(t, "3", c.LastEventID())
	loopCtx, endLoop := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer endLoop()
	for range c.Events(loopCtx) {
		t.Fatal("nothing more was sent")
	}
	assert.Equal(t, health.Connected, c.Status().State, "the loop's ctx ends the loop, not the stream")
}

// TestEventFields: names, multi-line data, ids inherited by events that
// have none, and blocks without data that are not events but move the
// position.
func TestEventFields(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
		stream(w)
		_, _ = w.Write([]byte("event: price\ndata: line 1\ndata: line 2\nid: 7\n\n" +
			": a comment\n\n" +
			"data: no id of its own\n\n" +
			"id: 8\n\n" + // no data: not an event
			"event: tick\r\ndata: crlf\r\n\r\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	c := start(t, srv.URL+"/events", testOptions(), nil)
	var evs []sse.Event
	for range 3 {
		g := c.next(t, 5*time.Second)
		require.NoError(t, g.err)
		evs = append(evs, g.ev)
	}
	testkit.WaitStatus(t, c, time.Second, "connected", testkit.Connected(1))
	assert.Equal(t, []sse.Event{
		{ID: "7", Type: "price", Data: "line 1\nline 2"},
		{ID: "7", Data: "no id of its own"},
		{ID: "8", Type: "tick", Data: "crlf"},
	}, evs)
	assert.Equal(t, "8", c.LastEventID())
	require.NoError(t, c.stop())
}

// TestEventTooLargeBreaksTheStream: an event over ReadLimit breaks the
// stream; the ones before it are delivered.
func TestEventTooLargeBreaksTheStream(t *testing.T) {
	delivered := make(chan struct{})
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
		stream(w)
		send(w, "1", "small")
		<-delivered
		send(w, "2", strings.Repeat("x", 2048))
		<-r.Context().Done()
	})
	o := testOptions()
	o.ReadLimit = 1024
	first := true
	c := start(t, srv.URL+"/events", o, func(got) {
		if first {
			first = false
			close(delivered)
		}
	})
	g := c.next(t, 5*time.Second)
	assert.Equal(t, "small", g.ev.Data)
	g = c.next(t, 5*time.Second)
	assert.ErrorIs(t, g.err, sse.ErrEventTooLarge)
	assert.EqualError(t, g.err, "sse: read: event larger than ReadLimit (1024 bytes)")
	require.NoError(t, c.stop())
}

// Issue 19, defect 9: an event over ReadLimit that the server keeps in
// its history: each stream resumes just before it and breaks on it again.
// After three such breaks in a row the Client gives up, with an error that
// names ReadLimit, instead of reconnecting forever.
func TestPoisonEventInTheHistoryEndsTheClient(t *testing.T) {
	history := []string{"1", "2", "3", strings.Repeat("x", 2048), "5"}
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
		from, _ := strconv.Atoi(r.Header.Get("Last-Event-ID"))
		stream(w)
		for i := from; i < len(history); i++ {
			send(w, strconv.Itoa(i+1), history[i])
		}
		<-r.Context().Done()
	})
	o := testOptions()
	o.ReadLimit = 1024
	c := start(t, srv.URL+"/events", o, nil)
	var events, errs []string
	for _, g := range c.loopEnds(t, 10*time.Second) {
		if g.err != nil {
			errs = append(errs, g.err.Error())
			continue
		}
		events = append(events, g.ev.Data)
	}
	assert.Equal(t, []string{"1", "2", "3"}, events)
	require.NotEmpty(t, errs)
	assert.LessOrEqual(t, len(errs), 3, "each break once at most")
	assert.Contains(t, errs[len(errs)-1], "giving up")
	err := c.stop()
	assert.ErrorIs(t, err, supervisor.ErrFailed)
	assert.ErrorIs(t, err, sse.ErrEventTooLarge)
	assert.Contains(t, err.Error(), "an event over ReadLimit (1024 bytes) broke 3 connections in a row at the same place: giving up")
	assert.Equal(t, 3, srv.count(), "each stream resumed before it (how far depends on what the program took) and broke on it")
}
