package postgres

import (
	"net"
	"reflect"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/redial-go/redial/internal/redact"
)

// endpoint is one host of a DSN's host list: the supervisor's endpoint.
// pgx lists a host once per TLS mode it tries (sslmode=prefer: TLS, then
// plain; allow: the other way round), one after the other; those entries
// stay together, as one endpoint, tried within one attempt in pgx's order.
type endpoint struct {
	name  string                   // host:port, redacted
	tries []*pgconn.FallbackConfig // the entries of this host, in pgx's order
}

// endpointsOf splits cfg's host list (its Host, Port and TLSConfig, then
// its Fallbacks) into endpoints: a run of entries with the same host and
// port is one. It returns nil when cfg has one host, or when its
// target_session_attrs is prefer-standby: that choice needs an answer
// from every host (a standby anywhere beats the primary), so pgx keeps
// walking the whole list on every attempt.
func endpointsOf(cfg *pgconn.Config, secrets []string) []endpoint {
	if preferStandby(cfg) {
		return nil
	}
	all := append([]*pgconn.FallbackConfig{{Host: cfg.Host, Port: cfg.Port, TLSConfig: cfg.TLSConfig}}, cfg.Fallbacks...)
	var eps []endpoint
	for _, f := range all {
		if n := len(eps); n > 0 {
			if last := eps[n-1].tries[0]; last.Host == f.Host && last.Port == f.Port {
				eps[n-1].tries = append(eps[n-1].tries, f)
				continue
			}
		}
		eps = append(eps, endpoint{name: hostPort(f.Host, f.Port, secrets), tries: []*pgconn.FallbackConfig{f}})
	}
	if len(eps) < 2 {
		return nil
	}
	return eps
}

// steer makes cfg, a copy of the template config for one connection, dial
// e only: its host, port and TLS config become e's first entry's, its
// Fallbacks e's other entries (copies: a hook may change them). The rest
// of cfg, ValidateConnect (target_session_attrs) included, stays.
func (e endpoint) steer(cfg *pgconn.Config) {
	first := e.tries[0]
	cfg.Host, cfg.Port, cfg.TLSConfig = first.Host, first.Port, first.TLSConfig.Clone()
	cfg.Fallbacks = make([]*pgconn.FallbackConfig, 0, len(e.tries)-1)
	for _, f := range e.tries[1:] {
		cfg.Fallbacks = append(cfg.Fallbacks, &pgconn.FallbackConfig{Host: f.Host, Port: f.Port, TLSConfig: f.TLSConfig.Clone()})
	}
}

// names returns the endpoints' names.
func names(eps []endpoint) []string {
	out := make([]string, len(eps))
	for i, e := range eps {
		out[i] = e.name
	}
	return out
}

// hostPort is host:port as a name shows it: a host that shares a piece
// with one of secrets (a malformed DSN that pgx read another way than its
// author meant) is masked whole.
func hostPort(host string, port uint16, secrets []string) string {
	if sharesPiece(host, secrets) {
		host = redact.Mask
	}
	return net.JoinHostPort(host, strconv.Itoa(int(port)))
}

// preferStandby reports whether cfg's ValidateConnect is pgconn's for
// target_session_attrs=prefer-standby.
func preferStandby(cfg *pgconn.Config) bool {
	return cfg.ValidateConnect != nil &&
		reflect.ValueOf(cfg.ValidateConnect).Pointer() == reflect.ValueOf(pgconn.ValidateConnectTargetSessionAttrsPreferStandby).Pointer()
}
