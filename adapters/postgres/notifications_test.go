package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/pgtest"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// TestNotificationsEndWhenTheListenerFails ranges over Notifications of a
// Listener whose password is wrong: the loop must end by itself, soon,
// without spinning, and Err must say why.
func TestNotificationsEndWhenTheListenerFails(t *testing.T) {
	l := newListener(t, shared.URL(pgtest.User, badPassword, "postgres"), postgres.ListenerOptions{Channels: []string{"x"}})
	testkit.Run(t, l)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	began := time.Now()
	iterations := 0
	for n, err := range l.Notifications(ctx) {
		iterations++
		t.Logf("yielded %v, %v", n, err)
		if iterations > 100 {
			break
		}
	}
	took := time.Since(began)
	assert.Less(t, took, 5*time.Second, "the loop outlived the Listener")
	assert.Zero(t, iterations, "the loop yielded while there was never a connection")
	require.NoError(t, ctx.Err(), "the loop ended only with its ctx")
	select {
	case <-l.Done():
	default:
		t.Fatal("the loop ended before the Listener was done")
	}
	require.ErrorIs(t, l.Err(), supervisor.ErrFailed)
	var pg *pgconn.PgError
	require.ErrorAs(t, l.Err(), &pg)
	assert.Equal(t, "28P01", pg.Code)
	assert.NotContains(t, l.Err().Error(), "Wr0ng")
	assert.Equal(t, health.Failed, l.Status().State)
}

// TestNotificationsSayOnceWhatARestartMissed restarts the server under a
// loop over Notifications: the loop yields exactly one ErrMissed error,
// which says why the connection was lost, and then the notifications sent
// after it.
func TestNotificationsSayOnceWhatARestartMissed(t *testing.T) {
	t.Parallel()
	c := pgtest.Start(t, pgtest.Options{})
	l := newListener(t, c.DSN(), postgres.ListenerOptions{Channels: []string{"jobs"}})
	testkit.Run(t, l)
	testkit.WaitStatus(t, l, 10*time.Second, "connected", testkit.InState(health.Connected))
	c.Restart(t, pgtest.Fast)

	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var missed []error
	var got []postgres.Notification
	sender := c.Connect(t)
	for n, err := range l.Notifications(ctx) {
		if err != nil {
			missed = append(missed, err)
			if len(missed) == 1 { // the channels are LISTENed again: this one is not missed
				notify(t, sender, "jobs", "after")
			}
			continue
		}
		got = append(got, n)
		if n.Payload == "after" {
			notify(t, sender, "jobs", "last") // no second ErrMissed may come before it
			continue
		}
		break
	}
	require.NoError(t, ctx.Err(), "nothing came within 20s: missed %v, got %v", missed, got)
	require.Len(t, missed, 1, "ErrMissed errors: %v", missed)
	err := missed[0]
	assert.ErrorIs(t, err, postgres.ErrMissed)
	assert.ErrorContains(t, err, "notifications may have been missed")
	var pg *pgconn.PgError
	if assert.ErrorAs(t, err, &pg, "why the connection was lost: %v", err) {
		assert.Equal(t, "57P01", pg.Code, "a fast shutdown terminates the session")
	}
	require.Len(t, got, 2)
	assert.Equal(t, postgres.Notification{Channel: "jobs", Payload: "after", PID: got[0].PID}, got[0])
	assert.Equal(t, postgres.Notification{Channel: "jobs", Payload: "last", PID: got[1].PID}, got[1])
	assert.EqualValues(t, 2, l.Status().Connects)
	assert.False(t, errors.Is(err, supervisor.ErrFailed))
}

// TestNotificationsDeliverWhatWasReceivedBeforeTheEnd stops a Listener
// that holds notifications the program has not read: a loop started
// afterwards still gets them, then ends.
func TestNotificationsDeliverWhatWasReceivedBeforeTheEnd(t *testing.T) {
	admin := shared.Connect(t)
	l := newListener(t, shared.DSN(), postgres.ListenerOptions{Channels: []string{"tail"}})
	stop := testkit.Run(t, l)
	testkit.WaitStatus(t, l, 10*time.Second, "connected", testkit.InState(health.Connected))
	for _, p := range []string{"1", "2", "3"} {
		notify(t, admin, "tail", p)
	}
	waitQueued(t, l, 3)
	require.NoError(t, stop())
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var payloads []string
	for n, err := range l.Notifications(ctx) {
		require.NoError(t, err)
		payloads = append(payloads, n.Payload)
	}
	require.NoError(t, ctx.Err(), "the loop did not end with the Listener")
	assert.Equal(t, []string{"1", "2", "3"}, payloads)
}

// TestNotificationsEndWithTheirContext: a loop whose ctx ends returns,
// and the next loop goes on where it left off.
func TestNotificationsEndWithTheirContext(t *testing.T) {
	admin := shared.Connect(t)
	l := newListener(t, shared.DSN(), postgres.ListenerOptions{Channels: []string{"ctx"}})
	testkit.Run(t, l)
	testkit.WaitStatus(t, l, 10*time.Second, "connected", testkit.InState(health.Connected))
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	for n, err := range l.Notifications(ctx) {
		t.Fatalf("yielded %v, %v with nothing sent", n, err)
	}
	assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
	notify(t, admin, "ctx", "1")
	notify(t, admin, "ctx", "2")
	expect(t, l, "ctx", "1") // breaks out of its loop after one
	expect(t, l, "ctx", "2")
}
