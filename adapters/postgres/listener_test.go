package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

func TestListenerAddsChannelsAtOnceAndAfterReconnect(t *testing.T) {
	const app = "listener-add"
	admin := shared.Connect(t)
	l := newListener(t, shared.DSN("application_name", app), postgres.ListenerOptions{Channels: []string{"alpha"}})
	stop := testkit.Run(t, l)
	testkit.WaitStatus(t, l, 10*time.Second, "connected", testkit.InState(health.Connected))

	notify(t, admin, "alpha", "1")
	expect(t, l, "alpha", "1")

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	require.NoError(t, l.Listen(ctx, "Beta")) // returns once LISTENed
	notify(t, admin, "Beta", "2")
	expect(t, l, "Beta", "2")
	notify(t, admin, "alpha", "3")
	expect(t, l, "alpha", "3")
	assert.EqualValues(t, 1, l.Status().Connects, "adding a channel must not cost the connection")
	assert.Equal(t, []string{"alpha", "Beta"}, l.Channels())

	require.Equal(t, 1, terminate(t, admin, app))
	expectMissed(t, l, 10*time.Second)
	notify(t, admin, "Beta", "4")
	expect(t, l, "Beta", "4")
	notify(t, admin, "alpha", "5")
	expect(t, l, "alpha", "5")
	assert.EqualValues(t, 2, l.Status().Connects)

	require.NoError(t, stop())
	for n, err := range l.Notifications(context.Background()) {
		t.Fatalf("Notifications goes on after Run returned: %v, %v", n, err)
	}
	err := l.Listen(context.Background(), "gamma")
	assert.ErrorContains(t, err, "stopped", "Listen after Run returned does not wait forever")
}

// TestListenWhileNotificationsFlow interrupts the wait for notifications
// many times while a steady stream arrives: every interruption must leave
// the connection usable and lose, duplicate or reorder nothing.
func TestListenWhileNotificationsFlow(t *testing.T) {
	const n, extra = 2000, 30
	admin := shared.Connect(t)
	l := newListener(t, shared.DSN(), postgres.ListenerOptions{Channels: []string{"stream"}, Buffer: 8})
	testkit.Run(t, l)
	testkit.WaitStatus(t, l, 10*time.Second, "connected", testkit.InState(health.Connected))

	var wg sync.WaitGroup
	sendErr := make(chan error, 1)
	wg.Go(func() {
		for i := range n {
			if _, err := admin.Exec(context.Background(), "SELECT pg_notify('stream', $1)", fmt.Sprint(i)); err != nil {
				sendErr <- err
				return
			}
		}
	})
	wg.Go(func() {
		for i := range extra {
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			if err := l.Listen(ctx, fmt.Sprintf("extra-%d", i)); err != nil {
				sendErr <- err
				return
			}
		}
	})
	for i := range n {
		n, err := next(t, l, 10*time.Second)
		require.NoError(t, err)
		require.Equal(t, postgres.Notification{Channel: "stream", Payload: fmt.Sprint(i), PID: n.PID}, n, "notification %d", i)
	}
	wg.Wait()
	select {
	case err := <-sendErr:
		t.Fatal(err)
	default:
	}
	assert.EqualValues(t, 1, l.Status().Connects, "an interrupted wait cost the connection")
	assert.Len(t, l.Channels(), 1+extra)
	for i := range extra { // every added channel is LISTENed on the same connection
		notify(t, shared.Connect(t), fmt.Sprintf("extra-%d", i), "x")
		expect(t, l, fmt.Sprintf("extra-%d", i), "x")
	}
}

// TestListenFromTheConsumerWhileTheBufferIsFull calls Listen from the
// goroutine that consumes Notifications while the buffer is full: the
// Listener is then blocked delivering, not waiting on the server, and
// must still serve it.
func TestListenFromTheConsumerWhileTheBufferIsFull(t *testing.T) {
	admin := shared.Connect(t)
	l := newListener(t, shared.DSN(), postgres.ListenerOptions{Channels: []string{"busy"}, Buffer: 1})
	testkit.Run(t, l)
	testkit.WaitStatus(t, l, 10*time.Second, "connected", testkit.InState(health.Connected))
	for i := range 5 {
		notify(t, admin, "busy", fmt.Sprint(i))
	}
	waitQueued(t, l, 1) // full, with more to deliver
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	require.NoError(t, l.Listen(ctx, "later"), "Listen waited for the consumer, which is the caller")
	notify(t, admin, "later", "x")
	for i := range 5 {
		expect(t, l, "busy", fmt.Sprint(i))
	}
	expect(t, l, "later", "x")
	assert.EqualValues(t, 1, l.Status().Connects)
}
