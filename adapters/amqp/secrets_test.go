package amqp_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/amqp"
	"github.com/redial-go/redial/internal/testing/rabbittest"
	"github.com/redial-go/redial/supervisor"
)

// addUser creates user with password on the broker, allowed on "/" when
// allowed, and deletes it when the test ends: through erl_call, since a
// rabbitmqctl command took over a minute beside two burners and six test
// binaries (killed at rabbittest.CtlTimeout).
func addUser(t *testing.T, b *rabbittest.Broker, user, password string, allowed bool) {
	t.Helper()
	b.AddUser(t, user, password, allowed)
}

// forms returns s and the forms a transport or a URL derives from it.
func forms(s string) []string {
	return []string{s, url.QueryEscape(s), url.PathEscape(s), url.UserPassword("", s).String()[1:]}
}

// assertHidden checks that no form of any secret shows in text.
func assertHidden(t *testing.T, text string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		for _, f := range forms(s) {
			assert.NotContains(t, text, f, "a secret shows")
		}
	}
}

// The program's Topology fails quoting the credentials, raw, URL-encoded
// and as AMQP's PLAIN response; and the broker names the user in its
// refusal: none of it shows in Status, Err, the history or the log.
func TestSecretsNeverShow(t *testing.T) {
	b := rabbit.Get(t)
	const user, password = "svc-Tz81", "p@ss/w?rd#Tz81 x"
	addUser(t, b, user, password, true)
	u := b.URLAt(b.Addr(), user, password, "/")
	log, out := logger()
	c := newClient(t, u, amqp.Options{
		Topology: func(context.Context, *amqp091.Channel) error {
			return fmt.Errorf("declare failed for %s (%s, %s, %q)", u, url.QueryEscape(password), url.PathEscape(password), "\x00"+user+"\x00"+password)
		},
		Supervisor: supervisor.Settings{Logger: log, MaxAttempts: 1},
	})
	run(t, c)
	err := finished(t, c, time.Minute)
	require.ErrorIs(t, err, supervisor.ErrFailed)
	t.Log(err)
	assertHidden(t, everyText(c, out), user, password)
	assert.NotContains(t, everyText(c, out), "Tz81")

	// A user the vhost refuses: the broker's 530 names the user.
	const stranger = "svc-Qv55"
	addUser(t, b, stranger, password, false)
	c = newClient(t, b.URLAt(b.Addr(), stranger, password, "/"), amqp.Options{Supervisor: supervisor.Settings{Logger: log}})
	run(t, c)
	err = finished(t, c, time.Minute)
	var ae *amqp091.Error
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, amqp091.NotAllowed, ae.Code)
	t.Log(err)
	assert.Contains(t, err.Error(), "refused for user", "the broker's reason is kept")
	assertHidden(t, everyText(c, out), stranger, password)
	assertHidden(t, ae.Reason, stranger)
}

// BeforeConnect rotates the password: a refused one is retried (the next
// may be good), the hook's error quoting a token it set before is masked,
// and the good one connects. No token shows anywhere.
func TestRotatingPassword(t *testing.T) {
	b := rabbit.Get(t)
	const user = "svc-Rk42"
	good := "tok-3-" + strings.Repeat("G", 8)
	addUser(t, b, user, good, true)
	log, out := logger()
	var calls atomic.Int32
	c := newClient(t, b.URLAt(b.Addr(), user, "initial-Zz99", "/"), amqp.Options{
		BeforeConnect: func(_ context.Context, u *url.URL) error {
			switch calls.Add(1) {
			case 1:
				u.User = url.UserPassword(user, "tok-1-AAAAAAAA")
			case 2:
				return errors.New("refresh failed: tok-1-AAAAAAAA was revoked")
			default:
				u.User = url.UserPassword(user, good)
			}
			return nil
		},
		Supervisor: supervisor.Settings{Logger: log},
	})
	connected(t, run(t, c))
	assert.GreaterOrEqual(t, calls.Load(), int32(3))
	assert.Contains(t, out.String(), "refresh failed")
	assertHidden(t, everyText(c, out), "tok-1-AAAAAAAA", good, "initial-Zz99", user)
}
