// Package tcptest is the conformance harness that adapters/tcp and
// adapters/tcp/tcptls share: the same server, program and bad options,
// over plain TCP or TLS.
package tcptest

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/testing/conformance"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/redialtest"
	"github.com/redial-go/redial/supervisor"
)

// New is tcp.New, or tcptls.New with the harness's TLS config.
type New func(address string, o tcp.Options) (*supervisor.Supervisor[net.Conn], error)

// Transport is how the server speaks: Wrap turns its handler into the
// transport's (TLS's handshake first), ForGood into the refusal for good
// (a certificate the client does not trust). The zero Transport is plain
// TCP, whose refusal for good is a server that greets "sorry".
type Transport struct {
	Wrap    func(handle func(net.Conn, <-chan struct{})) func(net.Conn, <-chan struct{})
	ForGood func(handle func(net.Conn, <-chan struct{})) func(net.Conn, <-chan struct{})
	Refusal string // what the refusal for good says
}

// Conformance runs the suite for pkg. The server greets and then reads
// what it is sent. The program's loop writes to the connection, so that
// TCP_USER_TIMEOUT finds a stalled server.
func Conformance(t *testing.T, pkg string, newFn New, tr Transport) {
	const userTimeout = 500 * time.Millisecond
	wrap, forGood, refusal := tr.Wrap, tr.ForGood, tr.Refusal
	if wrap == nil {
		wrap = func(h func(net.Conn, <-chan struct{})) func(net.Conn, <-chan struct{}) { return h }
		forGood = func(func(net.Conn, <-chan struct{})) func(net.Conn, <-chan struct{}) { return greet("sorry\n") }
		refusal = `server refused: "sorry\n"`
	}
	bad := func(field, want, address string, o tcp.Options) redialtest.Bad {
		return redialtest.Bad{Field: field, Want: pkg + ": " + want, New: func() error {
			s, err := newFn(address, o)
			if s != nil {
				return fmt.Errorf("New returned a supervisor with its error %v", err)
			}
			return err
		}}
	}
	redialtest.TestConnector(t, redialtest.Harness{
		Pkg: pkg,
		Start: func(t testing.TB) redialtest.Server {
			return conformance.StartTCP(t, &conformance.TCPServer{
				Serving: wrap(greetAndDiscard),
				ForGood: forGood(greetAndDiscard),
			})
		},
		New: func(t testing.TB, addr string, o redialtest.Options) (redialtest.Client, error) {
			return newFn(addr, tcp.Options{
				UserTimeout: userTimeout,
				Handshake:   readHelloAfter(o.BeforeConnect),
				OnConnect:   redialtest.OnConnect[net.Conn](o.OnConnect),
				Supervisor:  o.Settings,
			})
		},
		Streams: []redialtest.Stream{redialtest.Connections(asSupervisor, writeUntilBroken)},
		Bad: []redialtest.Bad{
			bad("address", "address: empty", "", tcp.Options{}),
			bad("address", `address "localhost": missing port in address`, "localhost", tcp.Options{}),
			bad("address", `address "h:1:2": too many colons in address`, "h:1:2", tcp.Options{}),
			bad("UserTimeout", "UserTimeout -1s: negative", "h:1", tcp.Options{UserTimeout: -time.Second}),
			bad("UserTimeout", "UserTimeout 24h0m0.001s: longer than 24h0m0s", "h:1", tcp.Options{UserTimeout: 24*time.Hour + time.Millisecond}),
			bad("KeepAlive.Idle", "KeepAlive.Idle 25h0m0s: longer than 24h0m0s", "h:1", tcp.Options{KeepAlive: net.KeepAliveConfig{Idle: 25 * time.Hour}}),
			bad("KeepAlive.Interval", "KeepAlive.Interval -1ns: negative", "h:1", tcp.Options{KeepAlive: net.KeepAliveConfig{Interval: -1}}),
			bad("KeepAlive.Interval", "KeepAlive.Interval 25h0m0s: longer than 24h0m0s", "h:1", tcp.Options{KeepAlive: net.KeepAliveConfig{Interval: 25 * time.Hour}}),
			bad("KeepAlive.Count", "KeepAlive.Count -1: negative", "h:1", tcp.Options{KeepAlive: net.KeepAliveConfig{Count: -1}}),
			bad("KeepAlive", "KeepAlive: Interval or Count set while Idle is negative (keep-alive off)", "h:1", tcp.Options{KeepAlive: net.KeepAliveConfig{Idle: -1, Count: 2}}),
			bad("Replicas[1]", `Replicas[1] "c": missing port in address`, "a:1", tcp.Options{Replicas: []string{"b:1", "c"}}),
		},
		Refusal:   refusal,
		Hook:      "Handshake",
		OnConnect: true,
		Silent:    supervisor.ErrSilent,
		Liveness:  5 * userTimeout,
		Skip: map[string]string{
			"secrets-refused":   noSecrets,
			"secrets-closed":    noSecrets,
			"secrets-after-run": noSecrets,
			"secrets-callbacks": noSecrets,
		},
	})
}

const noSecrets = "no secret to show: the target is host:port, nothing is sent but the program's, and its Handshake sets no credential"

// TLS is the Transport of a server with serverTLS's certificate, whose
// refusal for good is a certificate the client does not trust.
func TLS(t *testing.T, serverTLS *tls.Config) Transport {
	untrusted, _ := testkit.SelfSigned(t)
	return Transport{
		Wrap: func(h func(net.Conn, <-chan struct{})) func(net.Conn, <-chan struct{}) {
			return testkit.TLSServe(serverTLS, h)
		},
		ForGood: func(h func(net.Conn, <-chan struct{})) func(net.Conn, <-chan struct{}) {
			return testkit.TLSServe(untrusted, h)
		},
		Refusal: "certificate signed by unknown authority",
	}
}

func asSupervisor(c redialtest.Client) *supervisor.Supervisor[net.Conn] {
	return c.(*supervisor.Supervisor[net.Conn])
}

// greet says text and hangs up.
func greet(text string) func(net.Conn, <-chan struct{}) {
	return func(c net.Conn, _ <-chan struct{}) { _, _ = io.WriteString(c, text) }
}

// greetAndDiscard says hello, then reads and drops what it is sent.
func greetAndDiscard(c net.Conn, _ <-chan struct{}) {
	if _, err := c.Write([]byte("hello\n")); err == nil {
		_, _ = io.Copy(io.Discard, c)
	}
}

// readHelloAfter is the Handshake: the case's BeforeConnect, when set (the
// per-attempt hook of tcp), then the server's greeting; any other
// greeting is a refusal for good.
func readHelloAfter(before func(context.Context) (string, error)) func(context.Context, net.Conn) error {
	return func(ctx context.Context, c net.Conn) error {
		if before != nil {
			if _, err := before(ctx); err != nil {
				return err
			}
		}
		buf := make([]byte, len("hello\n"))
		if _, err := io.ReadFull(c, buf); err != nil {
			return err
		}
		if string(buf) != "hello\n" {
			return backoff.Permanent(fmt.Errorf("server refused: %q", buf))
		}
		return nil
	}
}

// writeUntilBroken is the program's loop body: it writes 32 KiB every 5ms
// until a write fails (the server hung up, or stalled and
// TCP_USER_TIMEOUT ended the write) or ctx ends.
func writeUntilBroken(ctx context.Context, conn net.Conn) error {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	chunk := make([]byte, 32<<10)
	for {
		if _, err := conn.Write(chunk); err != nil {
			return err
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
