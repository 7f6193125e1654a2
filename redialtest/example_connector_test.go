package redialtest_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redial-go/redial/redialtest"
	"github.com/redial-go/redial/supervisor"
)

// A program's own Connector proves itself with the cases redial's adapters
// pass. TestConnector needs a *testing.T, which an Example has not: this
// is a test, named as the example it is.
func TestExampleConnector(t *testing.T) {
	addr := startLineServer(t) // the program's real server
	redialtest.TestConnector(t, redialtest.Harness{
		Target: addr,
		New: func(_ testing.TB, addr string, o redialtest.Options) (redialtest.Client, error) {
			return supervisor.New(&lineClient{addr: addr}, supervisor.Options[*lineConn]{
				Settings:  o.Settings,
				OnConnect: redialtest.OnConnect[*lineConn](o.OnConnect), // the cases' OnConnect, or nil
			})
		},
		OnConnect: true,
		Liveness:  pingEvery + pingTimeout,
		Silent:    supervisor.ErrSilent,
	})
}

const pingEvery, pingTimeout = 200 * time.Millisecond, 500 * time.Millisecond

// lineClient is the program's Connector: a line protocol over TCP whose
// server greets "hello" and answers each PING with PONG.
type lineClient struct{ addr string }

type lineConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *lineClient) Connect(ctx context.Context) (*lineConn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", c.addr)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	conn := &lineConn{Conn: nc, r: bufio.NewReader(nc)}
	if greeting, err := conn.r.ReadString('\n'); err != nil || greeting != "hello\n" {
		_ = nc.Close()
		return nil, fmt.Errorf("line: greeting %q: %w", greeting, errors.Join(err, ctx.Err()))
	}
	return conn, nil
}

func (c *lineClient) Close(conn *lineConn) error { return conn.Close() }

// Watch pings every pingEvery; a PONG late by pingTimeout is silence.
func (c *lineClient) Watch(ctx context.Context, conn *lineConn) error {
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	tick := time.NewTicker(pingEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		_ = conn.SetDeadline(time.Now().Add(pingTimeout))
		if _, err := conn.Write([]byte("PING\n")); err != nil {
			return err
		}
		line, err := conn.r.ReadString('\n')
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() && ctx.Err() == nil {
			return fmt.Errorf("line: no PONG within %v: %w", pingTimeout, supervisor.ErrSilent)
		}
		if err != nil {
			return err
		}
		if line != "PONG\n" {
			return fmt.Errorf("line: %q for a PING", line)
		}
	}
}

// startLineServer starts the line server on 127.0.0.1 until t ends. Its
// connections end with the Proxy's that each case closes.
func startLineServer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serveLine(c)
		}
	}()
	return ln.Addr().String()
}

func serveLine(c net.Conn) {
	defer c.Close()
	if _, err := c.Write([]byte("hello\n")); err != nil {
		return
	}
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "PING" {
			if _, err := c.Write([]byte("PONG\n")); err != nil {
				return
			}
		}
	}
}
