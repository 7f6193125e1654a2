package postgres

import (
	"net"
	"reflect"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/redial-go/redial/internal/redact"
)

// endpoint is one host of a DSN: pgx's entries for it (one per TLS mode
// it tries) stay together, tried within one attempt in pgx's order.
type endpoint struct {
	name  string                   // host:port, redacted
	tries []*pgconn.FallbackConfig // the entries of this host, in pgx's order
}

// endpointsOf splits cfg's host list into endpoints, a run of entries
// with the same host and port being one. nil with one host, or with
// target_session_attrs=prefer-standby, which needs every host's answer.
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

// steer makes cfg, a copy of the template, dial e only (copies of e's
// entries: a hook may change them); the rest of cfg stays.
func (e endpoint) steer(cfg *pgconn.Config) {
	first := e.tries[0]
	cfg.Host, cfg.Port, cfg.TLSConfig = first.Host, first.Port, first.TLSConfig.Clone()
	cfg.Fallbacks = make([]*pgconn.FallbackConfig, 0, len(e.tries)-1)
	for _, f := range e.tries[1:] {
		cfg.Fallbacks = append(cfg.Fallbacks, &pgconn.FallbackConfig{Host: f.Host, Port: f.Port, TLSConfig: f.TLSConfig.Clone()})
	}
}

func names(eps []endpoint) []string {
	out := make([]string, len(eps))
	for i, e := range eps {
		out[i] = e.name
	}
	return out
}

// hostPort is host:port, the host masked when it shares a piece with a
// secret.
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

// endpoints returns the supervisor's endpoints: the hosts, or with one
// host (or prefer-standby) the DSN as it is, one endpoint.
func (t target) endpoints() []string {
	if !t.several() {
		return []string{t.name}
	}
	return names(t.hosts)
}

// at returns where ConnectTo(i) dials: host i, or -1 (the DSN as it is).
func (t target) at(i int) int {
	if !t.several() {
		return -1
	}
	return i
}
