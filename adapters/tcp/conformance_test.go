package tcp_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/internal/conformance"
	"github.com/redial-go/redial/internal/testkit"
	"github.com/redial-go/redial/supervisor"
)

// The harness: a TLS server that greets and then reads what it is sent; a
// certificate the client does not trust is its refusal for good. The
// program's loop writes to the connection, so that TCP_USER_TIMEOUT finds
// a stalled server.
func TestConformance(t *testing.T) {
	serverTLS, clientTLS := testkit.SelfSigned(t)
	untrusted, _ := testkit.SelfSigned(t)
	const userTimeout = 500 * time.Millisecond
	conformance.Run(t, conformance.Harness{
		Pkg: "tcp",
		Start: func(t testing.TB) conformance.Server {
			return conformance.StartTCP(t, &conformance.TCPServer{
				Serving: testkit.TLSServe(serverTLS, greetAndDiscard),
				ForGood: testkit.TLSServe(untrusted, greetAndDiscard),
			})
		},
		New: func(t testing.TB, srv conformance.Server, o conformance.Options) (conformance.Client, error) {
			s, err := tcp.New(srv.(*conformance.TCPServer).Addr, tcp.Options{
				TLS:         clientTLS,
				UserTimeout: userTimeout,
				Handshake:   readHelloAfter(o.BeforeConnect),
				Supervisor:  supervisor.Options[net.Conn]{Settings: o.Settings, OnConnect: conformance.OnConnect[net.Conn](o.OnConnect)},
			})
			if err != nil {
				return nil, err
			}
			return s, nil
		},
		Streams: []conformance.Stream{conformance.Connections(asSupervisor, writeUntilBroken)},
		Bad: []conformance.Bad{
			bad("address", "tcp: address: empty", "", tcp.Options{}),
			bad("address", `tcp: address "localhost": missing port in address`, "localhost", tcp.Options{}),
			bad("address", `tcp: address "h:1:2": too many colons in address`, "h:1:2", tcp.Options{}),
			bad("UserTimeout", "tcp: UserTimeout -1s: negative", "h:1", tcp.Options{UserTimeout: -time.Second}),
			bad("KeepAlive.Idle", "tcp: KeepAlive.Idle -1s: negative", "h:1", tcp.Options{KeepAlive: net.KeepAliveConfig{Enable: true, Idle: -time.Second}}),
			bad("KeepAlive.Interval", "tcp: KeepAlive.Interval -1ns: negative", "h:1", tcp.Options{KeepAlive: net.KeepAliveConfig{Enable: true, Interval: -1}}),
			bad("KeepAlive.Count", "tcp: KeepAlive.Count -1: negative", "h:1", tcp.Options{KeepAlive: net.KeepAliveConfig{Enable: true, Count: -1}}),
			bad("KeepAlive", "tcp: KeepAlive: Idle, Interval or Count set without Enable", "h:1", tcp.Options{KeepAlive: net.KeepAliveConfig{Idle: time.Second}}),
			bad("KeepAlive", "tcp: KeepAlive: set while DisableKeepAlive is true", "h:1", tcp.Options{KeepAlive: net.KeepAliveConfig{Enable: true}, DisableKeepAlive: true}),
			bad("Replicas[1]", `tcp: Replicas[1] "c": missing port in address`, "a:1", tcp.Options{Replicas: []string{"b:1", "c"}}),
		},
		Refusal:  "certificate signed by unknown authority",
		Silent:   supervisor.ErrSilent,
		Liveness: 5 * userTimeout,
		Skip: map[string]string{
			"secrets-refused":   noSecrets,
			"secrets-closed":    noSecrets,
			"secrets-after-run": noSecrets,
			"secrets-callbacks": noSecrets,
		},
		Known: conformance.Known(nil),
	})
}

const noSecrets = "tcp has no secret to show: its target is host:port, it sends no header, and its Handshake sets no credential"

func asSupervisor(c conformance.Client) *supervisor.Supervisor[net.Conn] {
	return c.(*supervisor.Supervisor[net.Conn])
}

func bad(field, want, address string, o tcp.Options) conformance.Bad {
	return conformance.Bad{Field: field, Want: want, New: func() error {
		s, err := tcp.New(address, o)
		if s != nil {
			return fmt.Errorf("tcp.New returned a supervisor with its error %v", err)
		}
		return err
	}}
}

// greetAndDiscard says hello, then reads and drops what it is sent.
func greetAndDiscard(c net.Conn, _ <-chan struct{}) {
	if _, err := c.Write([]byte("hello\n")); err == nil {
		_, _ = io.Copy(io.Discard, c)
	}
}

// readHelloAfter is the Handshake: the case's BeforeConnect, when set (the
// per-attempt hook of tcp), then the server's greeting.
func readHelloAfter(before func(context.Context) (string, error)) func(context.Context, net.Conn) error {
	return func(ctx context.Context, c net.Conn) error {
		if before != nil {
			if _, err := before(ctx); err != nil {
				return err
			}
		}
		buf := make([]byte, len("hello\n"))
		_, err := io.ReadFull(c, buf)
		return err
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
