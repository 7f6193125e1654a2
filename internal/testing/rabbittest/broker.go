// Package rabbittest starts throwaway RabbitMQ brokers from the installed
// server for tests that need a real one: a node of its own (name, mnesia
// and log directories, Erlang cookie) on free ports of 127.0.0.1, with its
// own epmd, so that a test package can kill, freeze, stop and restart its
// broker without touching another package's. A user with a random
// password is created on the first boot.
//
// Every broker is stopped (epmd included) and its directory removed when
// the test ends or Close is called; a watchdog process does it even if the
// test binary dies. When RabbitMQ is not installed, New fails with
// ErrNoBroker and Start skips the test (fails it in CI), saying how to
// install it.
package rabbittest

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Host is the address every broker listens on.
const Host = "127.0.0.1"

// User is the user every broker is created with; its password is
// Broker.Password.
const User = "rabbituser"

// Options configures a broker. The zero value is a default broker.
type Options struct {
	// Port is the AMQP port; 0 picks a free one below the kernel's
	// ephemeral range, so that no outgoing connection takes it while the
	// broker is down and a restart finds it free.
	Port int
	// Config are extra rabbitmq.conf lines, e.g. "heartbeat = 5".
	Config []string
}

// Broker is one throwaway RabbitMQ node, running or stopped. Its methods
// are meant for one test goroutine at a time.
type Broker struct {
	bins     bins
	dir      string
	node     string
	port     int
	distPort int
	epmdPort int
	password string
	epmd     *proc
	dog      *watchdog
	srv      *proc // the running broker; nil when stopped
}

// Start starts a broker for t and stops it when t ends. It skips t when
// RabbitMQ is not installed (outside CI) and fails it when no broker can
// be started.
func Start(t testing.TB, o Options) *Broker {
	t.Helper()
	b, err := New(o)
	if err != nil {
		skipOrFail(t, err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("rabbittest: %v", err)
		}
	})
	return b
}

// New starts a broker that the caller must Close: the form for TestMain
// (see Shared). It returns once the broker accepts AMQP logins.
func New(o Options) (*Broker, error) {
	bs, err := findBins()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "rabbittest-")
	if err != nil {
		return nil, fmt.Errorf("rabbittest: %w", err)
	}
	b := &Broker{bins: bs, dir: dir, password: random(12), node: "rabbittest-" + random(4) + "@localhost", port: o.Port}
	if err := b.create(o); err != nil {
		return nil, errors.Join(err, b.Close())
	}
	return b, nil
}

// create writes the node's files, starts its epmd and watchdog, and boots
// the broker.
func (b *Broker) create(o Options) error {
	for _, d := range []string{"home", "mnesia", "log"} {
		if err := os.Mkdir(filepath.Join(b.dir, d), 0o700); err != nil {
			return fmt.Errorf("rabbittest: %w", err)
		}
	}
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	if b.port == 0 {
		b.port = ports[0]
	}
	b.distPort, b.epmdPort = ports[1], ports[2]
	conf := append([]string{
		fmt.Sprintf("listeners.tcp.1 = %s:%d", Host, b.port),
		"loopback_users = none",
		"default_user = " + User,
		"default_pass = " + b.password,
		"log.console = false",
	}, o.Config...)
	files := map[string]string{
		"rabbitmq.conf":     strings.Join(conf, "\n") + "\n",
		"enabled_plugins":   "[].\n",
		"rabbitmq-env.conf": "", // instead of /etc/rabbitmq/rabbitmq-env.conf
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(b.dir, name), []byte(text), 0o600); err != nil {
			return fmt.Errorf("rabbittest: %w", err)
		}
	}
	if b.epmd, err = startProc(b.dir, "epmd", b.env(), b.bins.epmd, "-port", strconv.Itoa(b.epmdPort), "-address", Host); err != nil {
		return err
	}
	if b.dog, err = startWatchdog(b.dir, b.epmd.pid()); err != nil {
		return err
	}
	return b.boot()
}

// env is the environment of every process of the node.
func (b *Broker) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RABBITMQ_") && !strings.HasPrefix(kv, "ERL_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	return append(env,
		"HOME="+filepath.Join(b.dir, "home"), // the Erlang cookie
		"ERL_EPMD_PORT="+strconv.Itoa(b.epmdPort),
		"RABBITMQ_NODENAME="+b.node,
		"RABBITMQ_NODE_IP_ADDRESS="+Host,
		"RABBITMQ_NODE_PORT="+strconv.Itoa(b.port),
		"RABBITMQ_DIST_PORT="+strconv.Itoa(b.distPort),
		"RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS=-kernel inet_dist_use_interface {127,0,0,1}",
		"RABBITMQ_MNESIA_BASE="+filepath.Join(b.dir, "mnesia"),
		"RABBITMQ_LOG_BASE="+filepath.Join(b.dir, "log"),
		"RABBITMQ_LOGS="+b.logFile(),
		"RABBITMQ_PID_FILE="+b.pidFile(),
		"RABBITMQ_CONFIG_FILE="+filepath.Join(b.dir, "rabbitmq.conf"),
		"RABBITMQ_CONF_ENV_FILE="+filepath.Join(b.dir, "rabbitmq-env.conf"),
		"RABBITMQ_ENABLED_PLUGINS_FILE="+filepath.Join(b.dir, "enabled_plugins"),
		"RABBITMQ_PLUGINS_EXPAND_DIR="+filepath.Join(b.dir, "plugins-expand"),
		"LC_ALL=C.UTF-8",
	)
}

// Close stops the broker at once (SIGKILL) if it runs, then its epmd, and
// removes its directory. It is safe to call more than once.
func (b *Broker) Close() error {
	if b.dog == nil && b.epmd == nil {
		return nil
	}
	err := b.kill()
	if b.epmd != nil {
		err = errors.Join(err, b.epmd.stop())
		b.epmd = nil
	}
	if b.dog != nil {
		err = errors.Join(err, b.dog.release())
		b.dog = nil
	}
	return errors.Join(err, os.RemoveAll(b.dir))
}

// Port is the AMQP port; it stays the same across restarts.
func (b *Broker) Port() int { return b.port }

// Addr is the broker's host:port, what a proxy in front of it dials.
func (b *Broker) Addr() string { return net.JoinHostPort(Host, strconv.Itoa(b.port)) }

// Password is User's password.
func (b *Broker) Password() string { return b.password }

// URL returns the amqp:// URL of User on the default vhost "/".
func (b *Broker) URL() string { return b.URLAt(b.Addr(), User, b.password, "/") }

// URLAt returns an amqp:// URL of addr (the broker's, or a proxy's) with
// the given credentials and vhost ("/" is the default vhost).
func (b *Broker) URLAt(addr, user, password, vhost string) string {
	u := url.URL{Scheme: "amqp", User: url.UserPassword(user, password), Host: addr, Path: "/"}
	if vhost != "/" {
		u.Path += vhost
	}
	return u.String()
}

// Log returns the broker's log so far, for failure messages.
func (b *Broker) Log() string {
	out, _ := os.ReadFile(b.logFile())
	return string(out)
}

func (b *Broker) logFile() string { return filepath.Join(b.dir, "log", "node.log") }
func (b *Broker) pidFile() string { return filepath.Join(b.dir, "broker.pid") }

func random(n int) string {
	p := make([]byte, n)
	_, _ = rand.Read(p)
	return hex.EncodeToString(p)
}
