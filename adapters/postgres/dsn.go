package postgres

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/redial-go/redial/health"
)

// parseConn parses dsn for one connection. The error names the DSN field
// and holds no part of the DSN (a malformed DSN can hide its password
// anywhere).
func parseConn(dsn string) (*pgx.ConnConfig, error) {
	if err := checkDSN(dsn); err != nil {
		return nil, err
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, malformed(dsn, err)
	}
	return cfg, nil
}

// parsePool parses dsn for a pool (it may carry pool_max_conns and friends).
func parsePool(dsn string) (*pgxpool.Config, error) {
	if err := checkDSN(dsn); err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, malformed(dsn, err)
	}
	return cfg, nil
}

// checkDSN refuses an empty DSN: pgx would read it as "use the
// environment and defaults", which is never what a program means.
func checkDSN(dsn string) error {
	if strings.TrimSpace(dsn) == "" {
		return fmt.Errorf("%w: DSN is empty (want postgres://user:password@host:5432/db or host=... user=... dbname=...)", ErrInvalidOptions)
	}
	return nil
}

var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|` + "`[^`]*`")

// malformed turns pgx's parse error into one that keeps the reason but no
// text of the DSN: pgx's own redaction is best-effort (a password with a
// space or an '@' leaks part of itself), and its ParseConfigError keeps the
// whole string in a field. Quoted fragments of the DSN in the reason are
// dropped too, and any password-like value left is masked.
func malformed(dsn string, err error) error {
	reason := err.Error()
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) {
		c := *pe
		c.ConnString = ""
		reason = strings.TrimPrefix(c.Error(), "cannot parse ``: ")
	}
	reason = quoted.ReplaceAllString(reason, "…")
	reason = health.Redact(reason, guesses(dsn)...)
	return fmt.Errorf("%w: DSN is malformed: %s", ErrInvalidOptions, reason)
}

var kvPassword = regexp.MustCompile(`(?i)\bpassword\s*=\s*('(?:[^'\\]|\\.)*'?|\S*)`)

// rawPasswords returns, best-effort, the password as written in dsn:
// the userinfo of a URL (up to the first and up to the last '@') and
// password=... values. They are masked in addition to the parsed password,
// so that an encoding pgx would normalize cannot slip through.
func rawPasswords(dsn string) []string {
	var out []string
	if _, rest, ok := strings.Cut(dsn, "://"); ok {
		if i := strings.LastIndex(rest, "@"); i >= 0 {
			if _, pw, ok := strings.Cut(rest[:i], ":"); ok {
				out = append(out, pw)
				if j := strings.Index(pw, "@"); j >= 0 {
					out = append(out, pw[:j])
				}
			}
		}
	}
	for _, m := range kvPassword.FindAllStringSubmatch(dsn, -1) {
		v := m[1]
		out = append(out, v, strings.Trim(v, "'"))
	}
	return out
}

// guesses returns the raw password candidates of dsn that are long
// enough to mask: a wrong guess of one or two characters would only garble
// the message ("fxxxxxiled"), which by then holds no DSN text anyway.
func guesses(dsn string) []string {
	var out []string
	for _, v := range rawPasswords(dsn) {
		if len(strings.Trim(v, "'")) >= 4 {
			out = append(out, v)
		}
	}
	return out
}

// secretsOf returns what must never be shown of a parsed config: its
// password, whatever its length, and the password's raw forms in dsn.
func secretsOf(dsn string, cfg *pgconn.Config) []string {
	s := guesses(dsn)
	if cfg != nil && cfg.Password != "" {
		s = append(s, cfg.Password)
	}
	return s
}
