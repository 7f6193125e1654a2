package tcp

import (
	"context"
	"net"

	"github.com/redial-go/redial/supervisor"
)

// Reconnect reports that conn failed with err (s.Invalidate) and waits for
// the next connection, bounded by ctx. It is what a program's reader calls
// when a Read or Write fails: Invalidate alone returns at once, and until
// the supervisor's goroutine has dropped conn, s.Conn may still return
// it; Reconnect never returns conn again, and waits on s's health channel
// rather than spinning.
func Reconnect(ctx context.Context, s *supervisor.Supervisor[net.Conn], conn net.Conn, err error) (net.Conn, error) {
	ch, unsub := s.Subscribe()
	defer unsub()
	s.Invalidate(conn, err)
	for {
		next, err := s.Conn(ctx)
		if err != nil || next != conn {
			return next, err
		}
		select { // conn is still live: wait for the next change of state
		case <-ch:
		case <-ctx.Done():
		}
	}
}
