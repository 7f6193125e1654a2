package postgres

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/jackc/pgx/v5/pgconn"
)

// ErrWrongRole is wrapped by the reason a connection was replaced because
// its server no longer answers the DSN's target_session_attrs: a primary
// fenced read-only (SQLSTATE 25006 on every write) or turned standby under
// read-write or primary, a standby promoted under standby or read-only.
var ErrWrongRole = errors.New("wrong server role for target_session_attrs")

// role is the server role a DSN's target_session_attrs asks for, as pgx
// checks it at connect; roleAny asks nothing (any, prefer-standby, a
// ValidateConnect of the program's own).
type role int

const (
	roleAny role = iota
	roleReadWrite
	roleReadOnly
	rolePrimary
	roleStandby
)

var roleNames = [...]string{"any", "read-write", "read-only", "primary", "standby"}

// roleOf returns the role whose check pgx runs at connect as
// cfg.ValidateConnect.
func roleOf(cfg *pgconn.Config) role {
	if cfg.ValidateConnect == nil {
		return roleAny
	}
	v := reflect.ValueOf(cfg.ValidateConnect).Pointer()
	for r, f := range map[role]pgconn.ValidateConnectFunc{
		roleReadWrite: pgconn.ValidateConnectTargetSessionAttrsReadWrite,
		roleReadOnly:  pgconn.ValidateConnectTargetSessionAttrsReadOnly,
		rolePrimary:   pgconn.ValidateConnectTargetSessionAttrsPrimary,
		roleStandby:   pgconn.ValidateConnectTargetSessionAttrsStandby,
	} {
		if reflect.ValueOf(f).Pointer() == v {
			return r
		}
	}
	return roleAny
}

// misplaced returns why pc's server no longer answers r, or nil. It asks
// nothing: PostgreSQL 14 and later report default_transaction_read_only
// and in_hot_standby with the answer to the first statement after they
// changed (a reload that fenced the server, a promotion), and pgconn keeps
// the last reported values. So a failed write's 25006 comes with the
// proof, and a program's own READ ONLY transaction, which changes neither,
// is not taken for a fence. Older servers report neither: no rule.
// pc must not be in use by another goroutine.
func (r role) misplaced(pc *pgconn.PgConn) error {
	if r == roleAny || pc == nil {
		return nil
	}
	readOnly, standby := pc.ParameterStatus("default_transaction_read_only"), pc.ParameterStatus("in_hot_standby")
	var why string
	switch {
	case (r == roleReadWrite || r == rolePrimary) && standby == "on":
		why = "is a standby (in_hot_standby on)"
	case r == roleReadWrite && readOnly == "on":
		why = "is read-only (default_transaction_read_only on)"
	case r == roleStandby && standby == "off":
		why = "is no standby (in_hot_standby off)"
	case r == roleReadOnly && readOnly == "off" && standby == "off":
		why = "takes writes (default_transaction_read_only and in_hot_standby off)"
	default:
		return nil
	}
	return fmt.Errorf("postgres: %w=%s: the server %s", ErrWrongRole, roleNames[r], why)
}

// wrongRoleAtConnect reports whether err is pgx's refusal of a server
// whose role is not the target's, found by ValidateConnect at connect.
func wrongRoleAtConnect(err error) bool {
	for _, e := range []error{pgconn.ErrReadOnlyConnection, pgconn.ErrReadWriteConnection,
		pgconn.ErrPrimaryConnection, pgconn.ErrStandbyConnection} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
