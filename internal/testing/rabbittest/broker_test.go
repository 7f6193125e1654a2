package rabbittest_test

import (
	"bytes"
	"errors"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/internal/testing/rabbittest"
)

// shared is the broker of every test here but those that need their own.
var shared = rabbittest.NewShared(rabbittest.Options{Config: []string{"heartbeat = 7"}})

func TestMain(m *testing.M) { goleak.VerifyTestMain(rabbittest.Main(m, shared)) }

// dial connects to url, failing t on an error.
func dial(t *testing.T, url string) *amqp091.Connection {
	t.Helper()
	c, err := amqp091.DialConfig(url, amqp091.Config{Dial: amqp091.DefaultDial(5 * time.Second)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// tap is a connection that keeps what the broker sent.
type tap struct {
	net.Conn
	mu  sync.Mutex
	got []byte
}

func (c *tap) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.got = append(c.got, p[:n]...)
	c.mu.Unlock()
	return n, err
}

// connectionForced is how connection.close (class 10, method 50) with
// reply code 320 CONNECTION_FORCED begins on the wire.
var connectionForced = []byte{0, 10, 0, 50, 0x01, 0x40}

// forced reports whether the broker sent connection.close 320. amqp091's
// close notification may say 501 instead: its close-ok can meet the
// broker's reset first.
func (c *tap) forced() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Contains(c.got, connectionForced)
}

// dialTap is dial, with a tap on the connection.
func dialTap(t *testing.T, url string) (*amqp091.Connection, *tap) {
	t.Helper()
	var tp *tap
	c, err := amqp091.DialConfig(url, amqp091.Config{Dial: func(network, addr string) (net.Conn, error) {
		conn, err := net.DialTimeout(network, addr, 5*time.Second)
		if err != nil {
			return nil, err
		}
		tp = &tap{Conn: conn}
		return tp, nil
	}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c, tp
}

// closed waits for the close notification of ch (a NotifyClose channel)
// and returns it.
func closed(t *testing.T, ch chan *amqp091.Error) *amqp091.Error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("the connection was not closed")
		return nil
	}
}

func TestKillAndStart(t *testing.T) {
	b := shared.Get(t)
	c := dial(t, b.URL())
	assert.Equal(t, 7*time.Second, c.Config.Heartbeat, "Config lines reach the broker")
	ch, err := c.Channel()
	require.NoError(t, err)
	_, err = ch.QueueDeclare("durable", true, false, false, false, nil)
	require.NoError(t, err)

	b.Sync(t) // mnesia caches its last writes for seconds (longer on a loaded machine): a kill loses them
	notify := c.NotifyClose(make(chan *amqp091.Error, 1))
	b.Kill(t)
	require.False(t, b.Running())
	ce := closed(t, notify)
	require.NotNil(t, ce, "a killed broker drops its connections")
	assert.False(t, ce.Server, "nobody said goodbye: %v", ce)
	b.Start(t)
	ch, err = dial(t, b.URL()).Channel()
	require.NoError(t, err)
	_, err = ch.QueueDeclarePassive("durable", true, false, false, false, nil)
	require.NoError(t, err, "the data survives a restart")
}

func TestStopAndStart(t *testing.T) {
	b := shared.Get(t)
	c, tp := dialTap(t, b.URL())
	notify := c.NotifyClose(make(chan *amqp091.Error, 1))
	b.Stop(t)
	ce := closed(t, notify)
	require.NotNil(t, ce)
	assert.True(t, tp.forced(), "a clean stop says CONNECTION_FORCED; amqp091 said %v", ce)
	b.Start(t)
	dial(t, b.URL())
}

func TestStopAppAndStartApp(t *testing.T) {
	b := shared.Get(t)
	c, tp := dialTap(t, b.URL())
	notify := c.NotifyClose(make(chan *amqp091.Error, 1))
	b.StopApp(t)
	ce := closed(t, notify)
	require.NotNil(t, ce)
	assert.True(t, tp.forced(), "stop_app says CONNECTION_FORCED; amqp091 said %v", ce)
	_, err := amqp091.DialConfig(b.URL(), amqp091.Config{Dial: amqp091.DefaultDial(time.Second)})
	assert.Error(t, err, "refused while the app is stopped")
	b.StartApp(t)
	dial(t, b.URL())
}

func TestRefusals(t *testing.T) {
	b := shared.Get(t)
	_, err := amqp091.Dial(b.URLAt(b.Addr(), rabbittest.User, "wrong", "/"))
	var ae *amqp091.Error
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, amqp091.AccessRefused, ae.Code, "a wrong password: %v", err)
	_, err = amqp091.Dial(b.URLAt(b.Addr(), rabbittest.User, b.Password(), "missing"))
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, amqp091.NotAllowed, ae.Code, "a missing vhost: %v", err)
}

// A frozen broker keeps its sockets open but answers nothing.
func TestFreeze(t *testing.T) {
	b := shared.Get(t)
	c := dial(t, b.URL())
	b.Freeze(t)
	done := make(chan error, 1)
	go func() {
		_, err := c.Channel()
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("a frozen broker answered: %v", err)
	case <-time.After(time.Second):
	}
	b.Thaw(t)
	require.NoError(t, <-done)
}

func TestCloseRemovesEverything(t *testing.T) {
	b, err := rabbittest.New(rabbittest.Options{})
	if errors.Is(err, rabbittest.ErrNoBroker) && os.Getenv("CI") != "true" {
		t.Skip(err)
	}
	require.NoError(t, err)
	dir, addr := b.DirForTest(), b.Addr()
	require.NoError(t, b.Close())
	require.NoError(t, b.Close(), "Close twice")
	_, err = os.Stat(dir)
	assert.True(t, os.IsNotExist(err), "directory left behind: %v", err)
	_, err = amqp091.Dial("amqp://" + addr)
	assert.Error(t, err, "the broker still answers")
}

// Without the broker's scripts New fails, saying how to install them
// (a test needing a broker then skips, or fails in CI).
func TestNoBroker(t *testing.T) {
	t.Setenv(rabbittest.BinEnv, t.TempDir())
	_, err := rabbittest.New(rabbittest.Options{})
	require.ErrorIs(t, err, rabbittest.ErrNoBroker)
	assert.Contains(t, err.Error(), "apt-get install rabbitmq-server")
}

// SetPassword changes a user's password at once (erl_call, not a
// rabbitmqctl VM): the new one logs in, the old one is refused; a
// password with quotes and backslashes is taken as it is.
func TestSetPassword(t *testing.T) {
	b := shared.Get(t)
	b.AddUser(t, "setpw", "old", true) // erl_call too
	const password = `n"ew\pw+/`
	began := time.Now()
	require.NoError(t, b.SetPassword("setpw", password))
	t.Logf("SetPassword took %v", time.Since(began))
	c := dial(t, b.URLAt(b.Addr(), "setpw", password, "/"))
	require.NoError(t, c.Close())
	_, err := amqp091.Dial(b.URLAt(b.Addr(), "setpw", "old", "/"))
	var ae *amqp091.Error
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, amqp091.AccessRefused, ae.Code, "the old password: %v", err)
}

// User limits and closing every connection through Eval: a limit of 0
// refuses a login until cleared; a close names its reason.
func TestLimitsAndCloseAll(t *testing.T) {
	b := shared.Get(t)
	require.NoError(t, b.SetUserLimits(rabbittest.User, `{"max-connections": 0}`))
	_, err := amqp091.Dial(b.URL())
	assert.Error(t, err, "a login over the limit")
	require.NoError(t, b.ClearUserLimits(rabbittest.User))
	c := dial(t, b.URL())
	notify := c.NotifyClose(make(chan *amqp091.Error, 1))
	require.NoError(t, b.CloseAllConnections("closed by rabbittest"))
	ce := closed(t, notify)
	require.NotNil(t, ce)
	assert.Contains(t, ce.Reason, "closed by rabbittest")
}

// An erl_call that cannot reach the node (as one did at load 8: "failed
// to connect to node") leaves the work to rabbitmqctl eval.
func TestEvalFallsBackToRabbitmqctl(t *testing.T) {
	b := shared.Get(t)
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "erl_call"), []byte("#!/bin/sh\necho 'erl_call: failed to connect to node' >&2\nexit 1\n"), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	require.NoError(t, b.ClearUserLimits(rabbittest.User))
}
