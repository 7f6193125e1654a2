package postgres

import (
	"context"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// poolRole is how a Pool leaves a server that no longer answers its
// target_session_attrs (see role.misplaced): every connection released
// to the pool (a Do's, a ping's, one the program used directly) is
// checked, and so is every dial, which pgx refuses when the role is
// wrong. Either replaces the pool (supervisor.Invalidate): its idle
// connections are closed, those in use when released, and it moves to
// the next endpoint; no dial goes to the one it left, but the
// supervisor's own attempts.
type poolRole struct {
	mu      sync.Mutex      // held while current moves, and while a misplaced connection is told
	replace func(err error) // invalidates the live pool; set by NewPool
}

// watchRole hooks cfg's AfterRelease and ValidateConnect, after the
// program's own, when the target asks for a role.
func (c *poolConnector) watchRole(cfg *pgxpool.Config) {
	if c.t.role == roleAny {
		return
	}
	after := cfg.AfterRelease
	cfg.AfterRelease = func(conn *pgx.Conn) bool {
		if wrong := c.t.role.misplaced(conn.PgConn()); wrong != nil {
			c.misplaced(conn.PgConn(), wrong)
			return false
		}
		return after == nil || after(conn)
	}
	validate := cfg.ConnConfig.ValidateConnect
	cfg.ConnConfig.ValidateConnect = func(ctx context.Context, pc *pgconn.PgConn) error {
		err := validate(ctx, pc)
		if wrongRoleAtConnect(err) {
			c.misplaced(pc, err)
		}
		return err
	}
}

// misplaced replaces the pool for err, unless pc belongs to an endpoint
// the pool has already left.
func (c *poolConnector) misplaced(pc *pgconn.PgConn, err error) {
	select {
	case <-c.made:
	default:
		return // no pool yet: the first attempt failed
	}
	c.role.mu.Lock()
	defer c.role.mu.Unlock()
	if s := sessionOf(pc); c.t.several() && (s == nil || s.endpoint != int(c.current.Load())) {
		return
	}
	c.lost()
	if c.role.replace != nil {
		c.role.replace(c.t.scrub(err))
	}
}

// moveTo makes endpoint i the one the pool dials; it reports whether it
// was another.
func (c *poolConnector) moveTo(i int) bool {
	c.role.mu.Lock()
	defer c.role.mu.Unlock()
	return int(c.current.Swap(int32(i))) != i
}
