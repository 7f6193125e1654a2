package redialtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/supervisor"
)

// A case can fail: each program below breaks one rule, and the case that
// holds the rule fails on it, while the same program without the break
// passes it.
func TestACaseFailsWhenItsRuleIsBroken(t *testing.T) {
	// Each break makes a case wait out its bound: 3s, for a pong client
	// whose every wait is met within 400ms (its Liveness) when it passes.
	defer func(w time.Duration) { wait = w }(wait)
	wait = 3 * time.Second
	addr := startPonger(t)
	quit, held := make(chan struct{}), make(chan net.Conn, 64)
	t.Cleanup(func() { // what the breaks leak ends with the test
		close(quit)
		for len(held) > 0 {
			_ = (<-held).Close()
		}
	})
	for _, tc := range []struct {
		name   string
		c      string
		broken breaks
		says   string
	}{
		{"no liveness", "stall", breaks{noWatch: true}, "no the stalled connection found"},
		{"silence not named", "stall", breaks{plainSilence: true}, "does not wrap"},
		{"a goroutine per connection left running", "no-leak", breaks{leak: true}, "goroutines left running"},
		{"a socket never closed", "no-leak", breaks{noClose: true}, "still holds 1 connections"},
		{"settings dropped", "bad-options", breaks{dropSettings: true}, "is accepted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, failed := runOne(t, tc.c, pongHarness(addr, breaks{quit: quit, held: held}))
			require.False(t, failed, "%s fails without the break: %s", tc.c, msg)
			tc.broken.quit, tc.broken.held = quit, held
			msg, failed = runOne(t, tc.c, pongHarness(addr, tc.broken))
			require.True(t, failed, "%s passes with the break", tc.c)
			assert.Contains(t, msg, tc.says)
		})
	}
}

// runOne runs the case named name on h, and returns its first failure.
func runOne(t *testing.T, name string, h Harness) (string, bool) {
	for _, c := range cases {
		if c.name == name {
			rec := &recorder{TB: t}
			done := make(chan struct{})
			var why string
			go func() {
				defer close(done)
				why = runCase(rec, h, c)
			}()
			<-done
			require.Empty(t, why, "%s skipped", name)
			return rec.result()
		}
	}
	t.Fatalf("no case %s", name)
	return "", false
}

// breaks are the rules a pong client can break.
type breaks struct {
	noWatch, plainSilence, leak, noClose, dropSettings bool
	quit                                               <-chan struct{} // ends what leak leaves
	// held keeps what noClose does not close: the collector would close
	// a socket nothing refers to (a finalizer), at a time of its own.
	held chan<- net.Conn
}

const pongEvery, pongTimeout = 100 * time.Millisecond, 300 * time.Millisecond

func pongHarness(addr string, b breaks) Harness {
	return Harness{
		Target: addr,
		New: func(_ testing.TB, addr string, o Options) (Client, error) {
			if b.dropSettings {
				o.Settings = supervisor.Settings{Logger: o.Settings.Logger, Backoff: o.Settings.Backoff}
			}
			if b.noWatch {
				return supervisor.New[*pongConn](&pongClient{addr: addr, b: b}, supervisor.Options[*pongConn]{Settings: o.Settings})
			}
			return supervisor.New[*pongConn](&watchingPongClient{pongClient{addr: addr, b: b}}, supervisor.Options[*pongConn]{Settings: o.Settings})
		},
		Liveness: pongEvery + pongTimeout,
		Silent:   supervisor.ErrSilent,
	}
}

type pongClient struct {
	addr string
	b    breaks
}

type pongConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *pongClient) Connect(ctx context.Context) (*pongConn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", c.addr)
	if err != nil {
		return nil, err
	}
	if c.b.leak {
		go func() { <-c.b.quit }()
	}
	return &pongConn{Conn: nc, r: bufio.NewReader(nc)}, nil
}

func (c *pongClient) Close(conn *pongConn) error {
	if c.b.noClose {
		c.b.held <- conn.Conn
		return nil
	}
	return conn.Close()
}

type watchingPongClient struct{ pongClient }

func (c *watchingPongClient) Watch(ctx context.Context, conn *pongConn) error {
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	for ctx.Err() == nil {
		_ = conn.SetDeadline(time.Now().Add(pongTimeout))
		if _, err := conn.Write([]byte("PING\n")); err != nil {
			return err
		}
		_, err := conn.r.ReadString('\n')
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() && ctx.Err() == nil {
			if c.b.plainSilence {
				return fmt.Errorf("no pong within %v", pongTimeout)
			}
			return fmt.Errorf("no pong within %v: %w", pongTimeout, supervisor.ErrSilent)
		}
		if err != nil {
			return err
		}
		select {
		case <-ctx.Done():
		case <-time.After(pongEvery):
		}
	}
	return ctx.Err()
}

// startPonger answers each line with PONG, until t ends.
func startPonger(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					if _, err := c.Write([]byte("PONG\n")); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}
