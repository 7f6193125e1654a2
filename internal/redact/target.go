package redact

import (
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/redial-go/redial/backoff"
)

// MinSecret is the shortest secret masked wherever it appears in text: a
// shorter one would garble every message ("7" in 127.0.0.1) and is no
// credential anyway. Shorter values are still masked in a Target's shown
// form and next to their query key.
const MinSecret = 4

// Target is what must never be shown of one target, built from what the
// program gave: the shown form of the target, and every value that must
// be masked wherever it appears — in the server's answers, in a wrapped
// library's errors — whatever its name. It does not guess from names: a
// query parameter is secret unless the program named its key public. The
// zero Target masks only what Text's patterns find. A Target is a value:
// safe for concurrent use.
type Target struct {
	raw, shown string
	secrets    []string // longest first, so that a secret inside another does not leave a piece
	pairs      [][2]string
}

// URL returns the Target of a URL. The shown form keeps the scheme, host,
// path and the query keys; it masks the userinfo whole (a user name in a
// ws or http URL is a token as often as a name) and every query value but
// those of the public keys. The password, a user name of MinSecret bytes
// or more, and every masked query value are secrets.
func URL(u *url.URL, public ...string) Target {
	t := Target{raw: u.String()}
	shown := *u
	if u.User != nil {
		shown.User = url.User(Mask)
		name := u.User.Username()
		p, _ := u.User.Password()
		t.secrets = append(t.secrets, name, p)
	}
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, part := range parts {
			rk, rv, hasValue := strings.Cut(part, "=")
			k, kerr := url.QueryUnescape(rk)
			v, verr := url.QueryUnescape(rv)
			switch {
			case part == "" || slices.Contains(public, k) && kerr == nil && verr == nil:
				continue
			case kerr != nil || verr != nil || !hasValue:
				// Unparseable, or a bare ?token: keep nothing of it.
				parts[i] = Mask
				t.secrets = append(t.secrets, part, k, rv)
				continue
			case rv == "":
				continue
			}
			parts[i] = rk + "=" + Mask
			t.secrets = append(t.secrets, v, rv)
			t.pairs = append(t.pairs, [2]string{rk, rv}, [2]string{k, v})
		}
		shown.RawQuery = strings.Join(parts, "&")
	}
	shown.Fragment, shown.RawFragment = "", ""
	t.shown = shown.String()
	t.secrets = tidy(t.secrets)
	return t
}

// With returns t with more secrets: header values the program set, a
// password given apart from the target.
func (t Target) With(secrets ...string) Target {
	t.secrets = tidy(append(slices.Clone(t.secrets), secrets...))
	return t
}

// Join returns t with o's secrets and secret query pairs too: the
// target's redactor joined with one attempt's (new credentials from a
// per-attempt hook). t's shown form stays.
func (t Target) Join(o Target) Target {
	t.secrets = tidy(append(slices.Clone(t.secrets), o.secrets...))
	t.pairs = append(slices.Clone(t.pairs), o.pairs...)
	return t
}

// tidy drops the secrets too short to mask in text and duplicates, and
// sorts the rest longest first.
func tidy(s []string) []string {
	out := s[:0]
	for _, v := range s {
		if len(v) >= MinSecret && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// Shown returns the target as it may be shown: a Name, a log line, a
// metric label.
func (t Target) Shown() string { return t.shown }

// Text returns s with the target masked: the target itself replaced by its
// shown form, every secret (and its URL-escaped forms) and every secret
// query pair masked, then what the generic patterns of the package-level
// Text find.
func (t Target) Text(s string) string {
	if t.raw != "" && t.raw != t.shown {
		s = strings.ReplaceAll(s, t.raw, t.shown)
	}
	for _, p := range t.pairs {
		s = strings.ReplaceAll(s, p[0]+"="+p[1], p[0]+"="+Mask)
	}
	return Text(s, t.secrets...)
}

// Error returns an error whose text is t.Text(err.Error()) and whose
// chain holds only keep — errors known to hold no secret (a network error,
// a close status rebuilt with its reason masked, context.Canceled) — and
// err's backoff marks (Permanent, RetryAfter). It returns nil for nil.
func (t Target) Error(err error, keep ...error) error {
	if err == nil {
		return nil
	}
	out := Scrubbed(t.Text(err.Error()), keep...)
	if backoff.IsPermanent(err) {
		out = backoff.Permanent(out)
	}
	if d, ok := backoff.RetryAfterHint(err); ok {
		out = backoff.RetryAfter(out, d)
	}
	return out
}
