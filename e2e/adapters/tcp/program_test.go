package tcp_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// program plays the program's side of the plain TCP contract: it ranges
// over Connections, makes round trips on each every few milliseconds, and
// reports a failed Read or Write with Invalidate. Each connection on which
// a round trip succeeded is offered on ok.
type program struct {
	ok chan net.Conn
}

func startProgram(t *testing.T, s *supervisor.Supervisor[net.Conn]) *program {
	ctx, cancel := context.WithCancel(context.Background())
	p := &program{ok: make(chan net.Conn, 1)}
	var wg sync.WaitGroup
	wg.Go(func() { p.run(ctx, s) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	return p
}

func (p *program) run(ctx context.Context, s *supervisor.Supervisor[net.Conn]) {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for conn := range s.Connections(ctx) {
		stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
		err := p.roundTrips(ctx, conn, tick.C)
		stop()
		if ctx.Err() != nil {
			return
		}
		s.Invalidate(conn, err)
	}
}

func (p *program) roundTrips(ctx context.Context, conn net.Conn, tick <-chan time.Time) error {
	r := bufio.NewReader(conn)
	for i := 0; ; i++ {
		msg := fmt.Sprint(i)
		if _, err := conn.Write([]byte(msg + "\n")); err != nil {
			return err
		}
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		if line != msg+"\n" {
			return fmt.Errorf("echo %q, want %q", line, msg)
		}
		select { // offer conn, replacing an unread older one
		case p.ok <- conn:
		default:
			select {
			case <-p.ok:
			default:
			}
			p.ok <- conn
		}
		select {
		case <-tick:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// next waits for a successful round trip on a connection other than
// those in not.
func (p *program) next(t *testing.T, not ...net.Conn) net.Conn {
	t.Helper()
	timeout := time.NewTimer(testkit.Wait)
	defer timeout.Stop()
	for {
		select {
		case c := <-p.ok:
			if !slices.Contains(not, c) {
				return c
			}
		case <-timeout.C:
			require.FailNow(t, "no round trip on a new connection", "within %v", testkit.Wait)
		}
	}
}
