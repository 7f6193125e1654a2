package gorilla_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/gorilla"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// sendingServer writes msgs[n] on its n-th connection (counted from 1),
// then closes it with closes[n] (none: reads until the client leaves).
func sendingServer(t *testing.T, im impl, msgs map[int64][]string, closes map[int64]int) *server {
	var conns atomic.Int64
	return startServer(t, im, func(s *server, w http.ResponseWriter, r *http.Request) {
		p := s.accept(w, r, acceptOpts{})
		if p == nil {
			return
		}
		defer s.Forget(p)
		n := conns.Add(1)
		for _, m := range msgs[n] {
			if p.write(r.Context(), websocket.TextMessage, []byte(m)) != nil {
				return
			}
		}
		if code, ok := closes[n]; ok {
			p.close(code, "bye")
			return
		}
		_, _, _ = p.read(r.Context())
	})
}

// The supervisor stopping while a loop reads: its close ends the read, and
// the loop ends without an error.
func TestMessagesEndsWithoutErrorWhenStopped(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		srv := startServer(t, im, nil)
		c := run(t, srv.url("/feed"), testOptions(), true)
		testkit.WaitStatus(t, c, 5*time.Second, "connection", connected(1))
		require.NoError(t, c.Stop())
		select {
		case err := <-c.ReadErrs:
			t.Errorf("the loop yielded %v", err)
		default:
		}
	})
}

// gorilla/websocket allows one reader: a second loop over the same
// connection, or one on a WriteOnly supervisor, yields ErrReaderBusy once
// and ends; the reader in place keeps the connection.
func TestMessagesOneReaderAtATime(t *testing.T) {
	srv := startServer(t, impls[0], nil)
	t.Run("second loop", func(t *testing.T) {
		hello := sendingServer(t, impls[0], map[int64][]string{1: {"hello"}}, nil)
		c := run(t, hello.url("/feed"), testOptions(), false)
		reading := make(chan struct{})
		firstDone := make(chan error, 1)
		ctx, cancel := context.WithCancel(context.Background())
		go func() { // the first loop: it holds the reader from its first message on
			var loopErr error
			for msg, err := range gorilla.Messages(ctx, c.Supervisor) {
				if err != nil {
					loopErr = err
					break
				}
				if string(msg.Data) == "hello" {
					close(reading)
				}
			}
			firstDone <- loopErr
		}()
		<-reading
		var errs []error
		for _, err := range gorilla.Messages(context.Background(), c.Supervisor) {
			errs = append(errs, err)
		}
		require.Len(t, errs, 1)
		assert.ErrorIs(t, errs[0], gorilla.ErrReaderBusy)
		assert.Equal(t, "gorilla: read: another reader owns the connection", errs[0].Error())
		st := c.Status()
		assert.Equal(t, health.Connected, st.State)
		assert.Equal(t, uint64(1), st.Connects, "the first loop's connection stays")
		require.NoError(t, c.Stop())
		cancel()
		assert.NoError(t, <-firstDone, "the first loop ended without an error at the stop")
	})
	t.Run("WriteOnly", func(t *testing.T) {
		o := testOptions()
		o.WriteOnly = true
		c := run(t, srv.url("/feed"), o, false)
		var errs []error
		for _, err := range gorilla.Messages(context.Background(), c.Supervisor) {
			errs = append(errs, err)
		}
		require.Len(t, errs, 1)
		assert.ErrorIs(t, errs[0], gorilla.ErrReaderBusy)
		st := c.Status()
		assert.Equal(t, health.Connected, st.State)
		assert.Equal(t, uint64(1), st.Connects)
		require.NoError(t, c.Stop())
	})
}

// Messages allocates no more per message than conn.ReadMessage does.
func TestMessagesAllocatesAsReadDoes(t *testing.T) {
	testkit.AssertMessagesAllocateAsRead(t, feedWith, start, readOne, gorilla.Messages)
}
