package rabbittest

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"
)

// CtlTimeout bounds one rabbitmqctl command (an Erlang VM starts for each:
// a few seconds on a busy machine).
const CtlTimeout = 60 * time.Second

// Ctl runs rabbitmqctl against the broker and returns its output; it fails
// t when the command fails.
func (b *Broker) Ctl(t testing.TB, args ...string) string {
	t.Helper()
	out, err := b.ctl(args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TryCtl is Ctl for a goroutine other than the test's, or a command that
// may fail (the broker is down): it returns the error instead.
func (b *Broker) TryCtl(args ...string) (string, error) { return b.ctl(args...) }

func (b *Broker) ctl(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), CtlTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, b.bins.ctl, append([]string{"-q", "-n", b.node}, args...)...)
	cmd.Dir, cmd.Env = b.dir, b.env()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("rabbittest: rabbitmqctl %s: %w\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String(), nil
}

// StopApp stops the RabbitMQ application but not the node (rabbitmqctl
// stop_app): clients are told CONNECTION_FORCED (320) and new connections
// are refused until StartApp.
func (b *Broker) StopApp(t testing.TB) { t.Helper(); b.Ctl(t, "stop_app") }

// StartApp starts the application again and returns once it accepts
// logins.
func (b *Broker) StartApp(t testing.TB) {
	t.Helper()
	b.Ctl(t, "start_app")
	if b.srv == nil {
		t.Fatal(errNotRunning)
	}
	if err := b.waitUp(); err != nil {
		t.Fatal(err)
	}
}

// Dial opens a connection for the test's own use (declaring, deleting,
// publishing as an outsider); it is closed when t ends.
func (b *Broker) Dial(t testing.TB) *amqp091.Connection {
	t.Helper()
	c, err := amqp091.DialConfig(b.URL(), amqp091.Config{Dial: amqp091.DefaultDial(10 * time.Second)})
	if err != nil {
		t.Fatalf("rabbittest: dial: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Channel opens a channel on a connection of Dial's.
func (b *Broker) Channel(t testing.TB) *amqp091.Channel {
	t.Helper()
	ch, err := b.Dial(t).Channel()
	if err != nil {
		t.Fatalf("rabbittest: channel: %v", err)
	}
	return ch
}
