package postgres

import (
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/redial-go/redial/supervisor"
)

// Buffered returns how many deliveries wait in l's buffer: nothing else
// tells a test that the Listener has received what it has not handed out.
func Buffered(l *Listener) int { return len(l.items) }

// BufferCap returns the capacity of l's buffer.
func BufferCap(l *Listener) int { return cap(l.items) }

// EndpointNames returns the endpoints' names of a supervisor on dsn: none
// when it has one.
func EndpointNames(dsn string) []string {
	cfg, err := parseConn(dsn)
	if err != nil {
		panic(err)
	}
	return names(endpointsOf(&cfg.Config, secretsOf(dsn, &cfg.Config)))
}

// The supervisors under a Conn, a Pool and a Listener: the tests of the
// adapter's rules reach what a program cannot.
func (c *Conn) Sup() *supervisor.Supervisor[*pgx.Conn]         { return c.sup }
func (p *Pool) Sup() *supervisor.Supervisor[*pgxpool.Pool]     { return p.sup }
func (l *Listener) Sup() *supervisor.Supervisor[*listenerConn] { return l.sup }
