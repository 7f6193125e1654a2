package tcp

import (
	"context"
	"net"

	"github.com/redial-go/redial/supervisor"
)

// Reconnect reports that conn failed with err (s.Invalidate) and waits for
// the next connection, bounded by ctx. It is what a program's reader calls
// when a Read or Write fails. It never returns conn again: the supervisor
// does not hand out a connection once it was invalidated.
func Reconnect(ctx context.Context, s *supervisor.Supervisor[net.Conn], conn net.Conn, err error) (net.Conn, error) {
	s.Invalidate(conn, err)
	return s.Conn(ctx)
}
