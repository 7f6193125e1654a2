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

// parseConn parses dsn; the error holds no part of it (a malformed DSN can
// hide its password anywhere).
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

// malformed keeps the reason of pgx's parse error but no text of the DSN:
// pgx's redaction is best-effort, its ParseConfigError holds the whole
// string, and its reasons quote fragments. So quoted text is cut and every
// fragment of the DSN that is not a key is masked.
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

// cutQuoted replaces the text from the first quote to the last (or the
// end) with an ellipsis, for '"' and '`'.
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

// fragments returns the pieces of dsn of 4 bytes or more that are not
// keys or the scheme: whatever of the password pgx quoted is among them.
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

func separator(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune(`'"\=&?/:@,#[]%;`+"`", r)
}

var kvPassword = regexp.MustCompile(`(?i)\bpassword\s*=\s*('(?:[^'\\]|\\.)*'?|\S*)`)

// rawPasswords returns, best-effort, the password as written in dsn (a
// URL's userinfo, password=... values), masked beside the parsed one.
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

// guesses returns the raw password candidates of 4 bytes or more: a
// shorter wrong guess would only garble the text.
func guesses(dsn string) []string {
	var out []string
	for _, v := range rawPasswords(dsn) {
		if len(strings.Trim(v, "'")) >= 4 {
			out = append(out, v)
		}
	}
	return out
}

// secretsOf returns the parsed password, whatever its length, and its raw
// forms in dsn.
func secretsOf(dsn string, cfg *pgconn.Config) []string {
	s := guesses(dsn)
	if cfg != nil && cfg.Password != "" {
		s = append(s, cfg.Password)
	}
	return s
}
