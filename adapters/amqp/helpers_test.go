package amqp_test

import (
	"context"
	"fmt"
	"iter"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redial-go/redial/internal/testing/rabbittest"
	"github.com/stretchr/testify/assert"

	amqp091 "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/amqp"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// fast is the backoff of the tests: a broker's restart is waited out in
// about a second.
var fast = backoff.Config{Base: 50 * time.Millisecond, Cap: time.Second}

var queues atomic.Int64

// queueName returns a queue name no other test uses.
func queueName(t *testing.T) string {
	return fmt.Sprintf("q%d-%s", queues.Add(1), t.Name())
}

// declare returns a Topology that declares queue, durable.
func declare(queue string) func(context.Context, *amqp091.Channel) error {
	return func(_ context.Context, ch *amqp091.Channel) error {
		_, err := ch.QueueDeclare(queue, true, false, false, false, nil)
		return err
	}
}

// run starts c until the test ends and returns its health channel. Run's
// error is checked: nil, unless failed.
func run(t *testing.T, c *amqp.Client) <-chan health.Status {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ch, unsubscribe := c.Subscribe()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("Run did not return within 30s of cancel")
		}
		unsubscribe()
	})
	return ch
}

// connected waits for the Connected status.
func connected(t *testing.T, ch <-chan health.Status) health.Status {
	t.Helper()
	return testkit.Until(t, ch, 60*time.Second, "connected", func(st health.Status) bool { return st.State == health.Connected })
}

// newClient returns a Client of url with o, failing t on an error.
func newClient(t *testing.T, url string, o amqp.Options) *amqp.Client {
	t.Helper()
	if o.Supervisor.Backoff == (backoff.Config{}) {
		o.Supervisor.Backoff = fast
	}
	c, err := amqp.New(url, o)
	require.NoError(t, err)
	return c
}

// logger returns a stock slog JSON handler's Logger writing to a buffer
// the test can read.
func logger() (*slog.Logger, *testkit.Buffer) {
	var b testkit.Buffer
	return slog.New(slog.NewJSONHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug})), &b
}

// everyText returns every text of c a user could see: Status.Err, Err,
// the history's errors, the log.
func everyText(c *amqp.Client, log *testkit.Buffer) string {
	var b strings.Builder
	fmt.Fprintln(&b, c.Status().Err, c.Err(), log.String())
	for _, tr := range c.History() {
		fmt.Fprintln(&b, tr.Err)
	}
	return b.String()
}

// finished waits for c's Run to end (Done) and returns Err.
func finished(t *testing.T, c *amqp.Client, d time.Duration) error {
	t.Helper()
	select {
	case <-c.Done():
		return c.Err()
	case <-time.After(d):
		t.Fatalf("still running after %v: %v", d, c.Status())
		return nil
	}
}

// freeze freezes b (SIGSTOP) and returns thaw, which resumes it once; the
// test's cleanup calls it too.
func freeze(t *testing.T, b *rabbittest.Broker) (thaw func()) {
	t.Helper()
	b.Freeze(t)
	var once sync.Once
	thaw = func() { once.Do(func() { b.Thaw(t) }) }
	t.Cleanup(thaw)
	return thaw
}

// ctxFor returns a context that ends after d or when the test ends.
func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// until waits on ch for a Status that satisfies ok.
func until(t *testing.T, ch <-chan health.Status, what string, ok func(health.Status) bool) health.Status {
	t.Helper()
	return testkit.Until(t, ch, 60*time.Second, what, ok)
}

// lossOf returns the error of c's last lost connection (its history's
// last Connected -> Backoff transition).
func lossOf(t *testing.T, c *amqp.Client) error {
	t.Helper()
	h := c.History()
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].From == health.Connected && h[i].Err != nil {
			return h[i].Err
		}
	}
	t.Fatalf("no lost connection in the history: %v", h)
	return nil
}

// consuming is a connected Client with a queue of its own (Topology
// declares it, durable) and a Deliveries loop on it, pulled.
type consuming struct {
	c    *amqp.Client
	st   <-chan health.Status
	ctx  context.Context
	q    string
	next func() (amqp.Delivery, error, bool)
}

// startConsuming connects a Client to b and starts consuming its queue;
// ctx ends after d.
func startConsuming(t *testing.T, b *rabbittest.Broker, d time.Duration) *consuming {
	t.Helper()
	f := &consuming{q: queueName(t), ctx: ctxFor(t, d)}
	f.c = newClient(t, b.URL(), amqp.Options{Topology: declare(f.q)})
	f.st = run(t, f.c)
	connected(t, f.st)
	next, stop := iter.Pull2(f.c.Deliveries(f.ctx, f.q))
	t.Cleanup(stop)
	f.next = next
	return f
}

// roundTrip publishes body and takes it from the loop, acked.
func (f *consuming) roundTrip(t *testing.T, body string) {
	t.Helper()
	require.NoError(t, f.c.Publish(f.ctx, "", f.q, persistent(body)))
	d, err := pull(t, f.next)
	require.NoError(t, err)
	assert.Equal(t, body, string(d.Body))
	require.NoError(t, d.Ack(false))
}
