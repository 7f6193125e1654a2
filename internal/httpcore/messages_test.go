package httpcore_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/internal/httpcore"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// The messages of one connection, the read error once, then the next
// connection's messages, in order; Classify saw the close.
func TestMessagesInOrderAcrossServerClose(t *testing.T) {
	srv := serve(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			stream(w, r, "1", "2", "3", "close 1001 bye")
			return
		}
		stream(w, r, "4", "5", "6")
	})
	s := mustLines(t, srv.URL, httpcore.Config{}, fast())
	stop := testkit.Run(t, s)
	var got []string
	var errs []error
	for m, err := range linesReader.Messages(t.Context(), s) {
		if err != nil {
			got = append(got, "error")
			errs = append(errs, err)
			continue
		}
		if got = append(got, m); len(got) == 7 {
			break
		}
	}
	assert.Equal(t, []string{"1", "2", "3", "error", "4", "5", "6"}, got)
	require.Len(t, errs, 1, "the read error is yielded once")
	assert.True(t, strings.HasPrefix(errs[0].Error(), "lines: read: "), "%v", errs[0])
	st := s.Status()
	assert.Equal(t, uint64(2), st.Connects)
	ce, ok := errors.AsType[*closeError](st.Err)
	require.True(t, ok, "Classify saw the close: %v", st.Err)
	assert.Equal(t, 1001, ce.code)
	require.NoError(t, stop())
}

// A refusal fails the supervisor: a loop over Messages ends at once,
// without spinning; one that starts after the stop ends at once too.
func TestMessagesEndsAfterFailedOrStopped(t *testing.T) {
	srv := serve(t, refuse(http.StatusUnauthorized))
	s := mustLines(t, srv.URL, httpcore.Config{}, fast())
	testkit.Run(t, s)
	n := 0
	for range linesReader.Messages(t.Context(), s) {
		if n++; n > 1000 {
			break
		}
	}
	assert.Zero(t, n)
	assert.ErrorIs(t, s.Err(), supervisor.ErrFailed)

	ok := serve(t, func(_ int64, w http.ResponseWriter, r *http.Request) { stream(w, r, "hello") })
	s = mustLines(t, ok.URL, httpcore.Config{}, fast())
	stop := testkit.Run(t, s)
	testkit.WaitStatus(t, s, 5*time.Second, "connection", testkit.Connected(1))
	require.NoError(t, stop())
	for range linesReader.Messages(t.Context(), s) {
		n++
	}
	assert.Zero(t, n)
}

// A break leaves the connection alone: the next loop reads on from it.
func TestMessagesBreakLeavesTheConnection(t *testing.T) {
	srv := serve(t, func(_ int64, w http.ResponseWriter, r *http.Request) { stream(w, r, "1", "2") })
	s := mustLines(t, srv.URL, httpcore.Config{}, fast())
	stop := testkit.Run(t, s)
	first, err := s.Conn(t.Context())
	require.NoError(t, err)
	var got []string
	for range 2 {
		for m, err := range linesReader.Messages(t.Context(), s) {
			require.NoError(t, err)
			got = append(got, m)
			break
		}
	}
	assert.Equal(t, []string{"1", "2"}, got)
	now, err := s.Conn(t.Context())
	require.NoError(t, err)
	assert.Same(t, first, now)
	assert.Equal(t, uint64(1), s.Status().Connects)
	require.NoError(t, stop())
}

// A ctx that ends during a read ends the loop without an error and drops
// the connection; the supervisor replaces it.
func TestMessagesCtxEndsTheLoop(t *testing.T) {
	srv := serve(t, func(_ int64, w http.ResponseWriter, r *http.Request) { stream(w, r) })
	s := mustLines(t, srv.URL, httpcore.Config{}, fast())
	stop := testkit.Run(t, s)
	testkit.WaitStatus(t, s, 5*time.Second, "connection", testkit.Connected(1))
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	n := 0
	for range linesReader.Messages(ctx, s) {
		n++
	}
	assert.Zero(t, n, "nothing was sent, and the ctx's end is no error")
	testkit.WaitStatus(t, s, 5*time.Second, "a new connection", testkit.Connected(2))
	require.NoError(t, stop())
}

// One reader at a time: a second loop yields ErrReaderBusy once and ends;
// the first keeps the connection, and ends without an error at the stop.
func TestMessagesOneReaderAtATime(t *testing.T) {
	srv := serve(t, func(_ int64, w http.ResponseWriter, r *http.Request) { stream(w, r, "hello") })
	s := mustLines(t, srv.URL, httpcore.Config{}, fast())
	stop := testkit.Run(t, s)
	reading := make(chan struct{})
	firstDone := make(chan error, 1)
	go func() {
		var loopErr error
		for m, err := range linesReader.Messages(context.Background(), s) {
			if err != nil {
				loopErr = err
				break
			}
			if m == "hello" {
				close(reading)
			}
		}
		firstDone <- loopErr
	}()
	<-reading
	var errs []error
	for _, err := range linesReader.Messages(t.Context(), s) {
		errs = append(errs, err)
	}
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], httpcore.ErrReaderBusy)
	assert.Equal(t, "lines: read: another reader owns the connection", errs[0].Error())
	assert.Equal(t, uint64(1), s.Status().Connects)
	require.NoError(t, stop())
	assert.NoError(t, <-firstDone, "the first loop ended without an error at the stop")
}

// A line over ReadLimit that the server sends again at the same place on
// every connection fails the supervisor after PoisonBreaks connections,
// with an error that names the limit; one at another place each time does
// not.
func TestPoisonMessage(t *testing.T) {
	huge := strings.Repeat("x", 100)
	srv := serve(t, func(n int64, w http.ResponseWriter, r *http.Request) { stream(w, r, "snapshot follows", huge) })
	s := mustLines(t, srv.URL, httpcore.Config{ReadLimit: 64}, fast())
	testkit.Run(t, s)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var errs []error
	for m, err := range linesReader.Messages(ctx, s) {
		if err == nil {
			assert.Equal(t, "snapshot follows", m)
			continue
		}
		errs = append(errs, err)
	}
	require.NoError(t, ctx.Err(), "still reconnecting after %d requests", srv.requests.Load())
	require.Len(t, errs, httpcore.PoisonBreaks)
	assert.Equal(t, int64(httpcore.PoisonBreaks), srv.requests.Load())
	assert.ErrorIs(t, s.Err(), supervisor.ErrFailed)
	assert.ErrorIs(t, s.Err(), errTooLong)
	assert.Contains(t, s.Err().Error(), "a line over ReadLimit (64 bytes) broke 3 connections in a row at the same place: giving up")
	assert.Equal(t, "redial "+s.Name()+": gave up: connection lost: "+strings.TrimPrefix(errs[len(errs)-1].Error(), "lines: read: "), s.Err().Error())

	moving := serve(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		lines := make([]string, n)
		for i := range lines {
			lines[i] = "tick " + strconv.Itoa(i)
		}
		stream(w, r, append(lines, huge)...)
	})
	s = mustLines(t, moving.URL, httpcore.Config{ReadLimit: 64}, fast())
	stop := testkit.Run(t, s)
	breaks := 0
	for _, err := range linesReader.Messages(t.Context(), s) {
		if err != nil {
			if breaks++; breaks == 2*httpcore.PoisonBreaks {
				break
			}
		}
	}
	require.NoError(t, stop(), "a line over the limit at a new place each time is no poison")
}
