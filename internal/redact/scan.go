package redact

import (
	"net/url"
	"strings"
)

// The heuristics of Text, for text whose secrets nobody named: a URL's
// password and credential parameters, `name=value` and `name: value`
// credentials. Each is one pass of byte scanning, and a text without
// "://", '=' or ':' costs one search per pass: they run on every error a
// supervisor publishes. The names compare in ASCII case only.

// Names whose value is a credential: in `name=value` as the end of a name
// (eqLong, after a word boundary) or the whole name (eqShort); in `name:
// value` likewise (colonLong, colonShort).
var (
	eqLong     = []string{"password", "passwd", "pwd", "token", "secret", "apikey", "api_key", "signature", "credential"}
	eqShort    = []string{"pass", "key", "sig", "auth", "authorization"}
	colonLong  = []string{"password", "passwd", "token", "secret", "apikey", "api_key", "credential"}
	colonShort = []string{"authorization"}
	// authSchemes may stand between `Authorization:` and the credential.
	authSchemes = []string{"bearer", "basic", "token", "digest"}
)

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

func isWord(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

func isNameChar(c byte) bool { return isWord(c) || c == '.' || c == '-' }

func isSchemeChar(c byte) bool { return isWord(c) && c != '_' || c == '+' || c == '.' || c == '-' }

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// maskUserinfo masks what stands between the ':' of "scheme://user:" and
// the last '@' before the next space or '/': a password with a raw '?',
// '#' or '@' fools url.Parse, so this runs on the raw text first.
func maskUserinfo(text string) string {
	var b strings.Builder
	last := 0
	for from := 0; ; {
		i := strings.Index(text[from:], "://")
		if i < 0 {
			break
		}
		i += from
		from = i + 3
		k := from
		for k < len(text) && !isSpace(text[k]) && !strings.ContainsRune(":/@?#", rune(text[k])) {
			k++
		}
		if k == len(text) || text[k] != ':' {
			continue
		}
		m := k + 1
		for m < len(text) && !isSpace(text[m]) && text[m] != '/' {
			m++
		}
		at := strings.LastIndexByte(text[k+1:m], '@')
		if at < 0 {
			continue
		}
		b.WriteString(text[last : k+1])
		b.WriteString(Mask + "@")
		last = k + 1 + at + 1
		from = last
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// maskURLs passes every URL in text through redactURL: a scheme, "://"
// and what follows up to a space, a quote or an angle bracket.
func maskURLs(text string) string {
	var b strings.Builder
	last := 0
	for from := 0; ; {
		i := strings.Index(text[from:], "://")
		if i < 0 {
			break
		}
		i += from
		from = i + 3
		s := i
		for s > last && isSchemeChar(text[s-1]) {
			s--
		}
		for s < i && !isLetter(text[s]) {
			s++
		}
		e := from
		for e < len(text) && !isSpace(text[e]) && !strings.ContainsRune(`"'<>`, rune(text[e])) {
			e++
		}
		if s == i || e == from {
			continue
		}
		b.WriteString(text[last:s])
		b.WriteString(redactURL(text[s:e]))
		last, from = e, e
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// maskAssignments masks the value of every `name=value` (sep '=') or
// `name: value` (sep ':') whose name is a credential's.
func maskAssignments(text string, sep byte) string {
	var b strings.Builder
	last, written := 0, false
	for from := 0; ; {
		i := strings.IndexByte(text[from:], sep)
		if i < 0 {
			break
		}
		q := from + i
		from = q + 1
		if !credentialName(text, last, q, sep) {
			continue
		}
		v := q + 1
		for v < len(text) && isSpace(text[v]) {
			v++
		}
		b.WriteString(text[last:v])
		b.WriteString(Mask)
		if sep == ':' {
			v = skipScheme(text, v) // masked with the value
		}
		end := valueEnd(text, v)
		// A value masked already keeps what ends its clause, so that
		// masking twice changes nothing.
		if value := text[v:end]; strings.HasPrefix(value, Mask) && strings.Trim(value[len(Mask):], ":,.;)") == "" {
			b.WriteString(value[len(Mask):])
		}
		last, from, written = end, max(end, from), true
	}
	if !written {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// credentialName reports whether the name before the separator at q (and
// the spaces before it, and for ':' a quote) names a credential. The name
// is the run of [A-Za-z0-9_.-] before that, not reaching before floor.
func credentialName(text string, floor, q int, sep byte) bool {
	r := q
	for r > floor && isSpace(text[r-1]) {
		r--
	}
	long, short := eqLong, eqShort
	if sep == ':' {
		long, short = colonLong, colonShort
		if r > floor && (text[r-1] == '"' || text[r-1] == '\'') {
			r--
		}
	}
	s := r
	for s > floor && isNameChar(text[s-1]) {
		s--
	}
	for _, n := range long {
		if p := r - len(n); p >= s && strings.EqualFold(text[p:r], n) && boundaryIn(text, s, p) {
			return true
		}
	}
	for _, n := range short {
		if p := r - len(n); p >= s && strings.EqualFold(text[p:r], n) && boundaryIn(text, p, p) {
			return true
		}
	}
	return false
}

// boundaryIn reports whether a word boundary lies at a position in [lo, hi].
func boundaryIn(text string, lo, hi int) bool {
	for p := lo; p <= hi; p++ {
		if p == 0 && isWord(text[0]) || p > 0 && isWord(text[p-1]) != isWord(text[p]) {
			return true
		}
	}
	return false
}

// skipScheme skips an authorization scheme ("Bearer ") at v.
func skipScheme(text string, v int) int {
	for _, s := range authSchemes {
		if e := v + len(s); e < len(text) && strings.EqualFold(text[v:e], s) && isSpace(text[e]) {
			for e < len(text) && isSpace(text[e]) {
				e++
			}
			return e
		}
	}
	return v
}

// valueEnd returns the end of the value at v: a quoted string with its
// escapes, else a bare run up to a space or one of &;,"'}.
func valueEnd(text string, v int) int {
	if v < len(text) && (text[v] == '\'' || text[v] == '"') {
		for i := v + 1; i < len(text); i++ {
			switch text[i] {
			case text[v]:
				return i + 1
			case '\\':
				if i+1 == len(text) || text[i+1] == '\n' {
					return v // an unfinished quote: an empty value
				}
				i++
			}
		}
		return v
	}
	for v < len(text) && !isSpace(text[v]) && !strings.ContainsRune(`&;,"'}`, rune(text[v])) {
		v++
	}
	return v
}

// redactURL masks the password of one URL and drops its credential
// parameters. Punctuation that ends the URL's sentence ("dial ws://h/x:
// refused") is not part of it.
func redactURL(raw string) string {
	trimmed := strings.TrimRight(raw, ":,.;)")
	return redactOneURL(trimmed) + raw[len(trimmed):]
}

func redactOneURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw // the passes after this one still mask what they can
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), Mask)
	}
	if u.RawQuery != "" {
		q, err := url.ParseQuery(u.RawQuery)
		if err != nil {
			u.RawQuery = "" // unparseable: keep nothing of it
		} else {
			masked := true // every value is masked already (a Target's shown form): keep the query as it is
			for k, vs := range q {
				for _, v := range vs {
					masked = masked && (v == Mask || v == "")
				}
				if sensitiveParam(k) && !(len(vs) == 1 && vs[0] == Mask) {
					q.Del(k)
				}
			}
			if !masked {
				u.RawQuery = q.Encode()
			}
		}
	}
	return u.String()
}

// sensitiveParam reports whether a query parameter named k holds a credential.
func sensitiveParam(k string) bool {
	k = strings.ToLower(k)
	for _, s := range []string{"token", "key", "password", "passwd", "pwd", "secret", "signature", "sig", "auth", "credential"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}
