package postgres

import (
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/redial-go/redial/internal/redact"
)

// nameOf returns the default Name of kind over cfg, built from the parsed
// config: "postgres pool postgres://app@h1:5432,h2:5433/db". A part that
// shares a piece with a secret (pgx took part of a password for the host)
// is masked whole.
func nameOf(kind string, cfg *pgconn.Config, secrets []string) string {
	clean := func(s string) string {
		if sharesPiece(s, secrets) {
			return redact.Mask
		}
		return s
	}
	var hosts []string
	add := func(host string, port uint16) {
		hp := hostPort(host, port, secrets)
		if !slices.Contains(hosts, hp) { // sslmode=prefer lists every host twice
			hosts = append(hosts, hp)
		}
	}
	add(cfg.Host, cfg.Port)
	for _, f := range cfg.Fallbacks {
		add(f.Host, f.Port)
	}
	var b strings.Builder
	b.WriteString("postgres " + kind + " postgres://")
	if cfg.User != "" {
		b.WriteString(url.User(clean(cfg.User)).String() + "@")
	}
	b.WriteString(strings.Join(hosts, ","))
	b.WriteString("/" + url.PathEscape(clean(cfg.Database)))
	return b.String()
}

// newTarget returns what the constructor of kind knows of dsn once parsed
// as cfg; rotating says BeforeConnect is set.
func newTarget(kind, dsn string, cfg *pgconn.Config, tooMany time.Duration, rotating bool) target {
	secrets := secretsOf(dsn, cfg)
	t := target{secrets: redact.NewSet(redact.Target{}.With(secrets...)), name: nameOf(kind, cfg, secrets), tooMany: tooMany, rotating: rotating,
		hosts: endpointsOf(cfg, secrets), role: roleOf(cfg)}
	if len(t.hosts) > 1 {
		t.answers = newAnswers(len(t.hosts))
	}
	return t
}

// sharesPiece reports whether part and a secret share a piece of 4 bytes
// or more, whichever way pgx cut and decoded the DSN.
func sharesPiece(part string, secrets []string) bool {
	mine := pieces(part)
	for _, sec := range secrets {
		if len(sec) >= 4 && strings.Contains(part, sec) {
			return true
		}
		for _, p := range pieces(sec) {
			if strings.Contains(part, p) {
				return true
			}
		}
		for _, p := range mine {
			if strings.Contains(sec, p) {
				return true
			}
		}
	}
	return false
}

func pieces(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, separator) {
		if len(f) >= 4 {
			out = append(out, f)
		}
	}
	return out
}
