package postgres

import (
	"errors"
	"regexp"
	"strings"
	"unicode"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/internal/redact"
)

// parseConn parses dsn for one connection. The error names the dsn
// argument and holds no part of it (a malformed DSN can hide its password
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
		return opterr.New(pkg, "dsn", nil, "empty (want postgres://user:password@host:5432/db or host=... user=... dbname=...)")
	}
	return nil
}

// malformed turns pgx's parse error into one that keeps the reason but no
// text of the DSN: pgx's own redaction is best-effort (a password with a
// space or an '@' leaks part of itself), its ParseConfigError keeps the
// whole string in a field, and its reasons quote fragments of the DSN,
// quotes included ("%s", not %q). So the conn string is left out, quoted
// text is cut from the first quote to the last, and every other fragment
// of the DSN that is not a key is masked.
func malformed(dsn string, err error) error {
	reason := err.Error()
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) {
		c := *pe
		c.ConnString = ""
		reason = strings.TrimPrefix(c.Error(), "cannot parse ``: ")
	}
	reason = redact.Text(cutQuoted(reason), append(guesses(dsn), fragments(dsn)...)...)
	return opterr.New(pkg, "dsn", nil, "malformed: %s", reason)
}

// cutQuoted replaces everything from the first quote to the last (or to
// the end, for a lone quote) with an ellipsis, for '"' and '`'.
func cutQuoted(s string) string {
	for _, q := range []byte{'"', '`'} {
		i, j := strings.IndexByte(s, q), strings.LastIndexByte(s, q)
		switch {
		case i < 0:
		case j > i:
			s = s[:i] + "…" + s[j+1:]
		default:
			s = s[:i] + "…"
		}
	}
	return s
}

var dsnKey = regexp.MustCompile(`([A-Za-z_]+)\s*=`)

// fragments splits dsn at every separator a DSN or a password may hold and
// returns the pieces of 4 bytes or more that are not keys (host=,
// sslmode=) or the scheme: anything of the password pgx may have quoted
// or echoed is among them.
func fragments(dsn string) []string {
	keys := map[string]bool{"postgres": true, "postgresql": true}
	for _, m := range dsnKey.FindAllStringSubmatch(dsn, -1) {
		keys[m[1]] = true
	}
	var out []string
	for _, f := range strings.FieldsFunc(dsn, separator) {
		if len(f) >= 4 && !keys[f] {
			out = append(out, f)
		}
	}
	return out
}

// separator reports the runes at which a DSN or a password may be split.
func separator(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune(`'"\=&?/:@,#[]%;`+"`", r)
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
