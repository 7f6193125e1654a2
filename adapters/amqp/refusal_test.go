package amqp_test

import (
	"errors"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/amqp"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/rabbittest"
	"github.com/redial-go/redial/supervisor"
)

// A wrong password: the broker closes the socket at login, which looks
// like a broker going down, so the supervisor gives up at the second
// refusal in a row; every iterator and Publish end; the password shows
// nowhere.
func TestWrongPasswordGivesUp(t *testing.T) {
	b := rabbit.Get(t)
	const password = "wrong-Pa55word"
	log, out := logger()
	c := newClient(t, b.URLAt(b.Addr(), rabbittest.User, password, "/"), amqp.Options{
		Supervisor: supervisor.Settings{Logger: log}})
	run(t, c)
	ctx := ctxFor(t, time.Minute)
	for _, err := range c.Deliveries(ctx, "any") {
		t.Fatalf("Deliveries yielded %v on a refused login", err)
	}
	err := finished(t, c, time.Minute)
	require.ErrorIs(t, err, supervisor.ErrFailed)
	assert.ErrorIs(t, err, amqp091.ErrCredentials)
	assert.True(t, backoff.IsPermanent(err))
	assert.Equal(t, 2, c.Status().ConsecutiveFailures, "given up at the second refusal: %v", err)
	assert.ErrorIs(t, c.Publish(ctx, "", "any", amqp091.Publishing{}), supervisor.ErrFailed)
	assert.NotContains(t, everyText(c, out), password)
	assert.NotContains(t, everyText(c, out), rabbittest.User, "the user name is masked as the url's userinfo")
	assert.NotContains(t, err.Error(), "connect: connect:")
}

// A vhost that does not exist: 530 NOT_ALLOWED, given up at once.
func TestMissingVhostGivesUp(t *testing.T) {
	b := rabbit.Get(t)
	c := newClient(t, b.URLAt(b.Addr(), rabbittest.User, b.Password(), "missing"), amqp.Options{})
	run(t, c)
	err := finished(t, c, time.Minute)
	var ae *amqp091.Error
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, amqp091.NotAllowed, ae.Code)
	assert.Contains(t, err.Error(), "vhost missing not found")
	assert.Equal(t, 1, c.Status().ConsecutiveFailures)
	assert.NotContains(t, err.Error(), b.Password())
}

// A user connection limit (530 too) passes: retried, not given up.
func TestConnectionLimitIsRetried(t *testing.T) {
	b := rabbit.Get(t)
	b.Ctl(t, "set_user_limits", rabbittest.User, `{"max-connections": 0}`)
	cleared := false
	clear := func() {
		if !cleared {
			cleared = true
			b.Ctl(t, "clear_user_limits", rabbittest.User, "max-connections")
		}
	}
	t.Cleanup(clear)
	c := newClient(t, b.URL(), amqp.Options{})
	st := run(t, c)
	refused := until(t, st, "a refused attempt", func(s health.Status) bool { return s.State == health.Backoff })
	assert.Contains(t, refused.Err.Error(), "connection limit")
	assert.False(t, backoff.IsPermanent(refused.Err))
	clear()
	connected(t, st)
}

// Classify on its own: the classes of the package doc.
func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err       error
		permanent bool
	}{
		{amqp091.ErrCredentials, true},
		{amqp091.ErrVhost, true},
		{&amqp091.Error{Code: amqp091.AccessRefused, Reason: "ACCESS_REFUSED - Login was refused", Server: true}, true},
		{&amqp091.Error{Code: amqp091.NotAllowed, Reason: "NOT_ALLOWED - vhost x not found", Server: true}, true},
		{&amqp091.Error{Code: amqp091.NotAllowed, Reason: "NOT_ALLOWED - access to vhost '/' refused for user 'u': connection limit (0) is reached", Server: true}, false},
		{&amqp091.Error{Code: amqp091.PreconditionFailed, Reason: "PRECONDITION_FAILED - inequivalent arg", Server: true}, true},
		{&amqp091.Error{Code: amqp091.ConnectionForced, Reason: "CONNECTION_FORCED - shutdown", Server: true}, false},
		{&amqp091.Error{Code: amqp091.NotFound, Reason: "NOT_FOUND - no exchange 'x'", Server: true}, false},
		{errors.New("read: EOF"), false},
	} {
		got := amqp.Classify(tc.err)
		assert.Equal(t, tc.permanent, backoff.IsPermanent(got), "%v", tc.err)
		assert.ErrorIs(t, got, tc.err)
	}
	assert.NoError(t, amqp.Classify(nil))
}
