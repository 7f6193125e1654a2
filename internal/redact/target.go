package redact

import (
	"cmp"
	"encoding/base64"
	"net/url"
	"slices"
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
// library's errors — whatever its name, with the forms a transport derives
// from it. It does not guess from names: a query parameter is secret
// unless the program named its key public. The zero Target masks only
// what Text's heuristics find. A Target is a value: safe for concurrent
// use.
type Target struct {
	shown   string
	secrets []string    // as given, for With and Join
	masks   []string    // secrets and their derived forms, longest first
	swaps   [][2]string // a raw text and what replaces it: a raw URL its shown form, "k=v" "k=xxxxx"
}

// URL returns the Target of a URL. The shown form keeps the scheme, host,
// path and the query keys; it masks the userinfo whole (a user name in a
// ws or http URL is a token as often as a name) and every query value but
// those of the public keys. The user name, the password, the Basic
// authorization net/http derives from them, and every masked query value
// are secrets.
func URL(u *url.URL, public ...string) Target {
	var t Target
	shown := *u
	if u.User != nil {
		shown.User = url.User(Mask)
		name := u.User.Username()
		p, _ := u.User.Password()
		t.secrets = append(t.secrets, name, p, base64.StdEncoding.EncodeToString([]byte(name+":"+p)))
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
			t.swaps = append(t.swaps, [2]string{rk + "=" + rv, rk + "=" + Mask}, [2]string{k + "=" + v, k + "=" + Mask})
		}
		shown.RawQuery = strings.Join(parts, "&")
	}
	shown.Fragment, shown.RawFragment = "", ""
	t.shown = shown.String()
	if raw := u.String(); raw != t.shown {
		t.swaps = append([][2]string{{raw, t.shown}}, t.swaps...)
	}
	return t.tidy()
}

// HeaderValues returns what must be masked of a request header (an
// http.Header) the program set: every value, the credentials after a
// scheme ("Bearer T0KEN", "Basic dXNlcjpwdw=="), and each `name=value`
// part of a list ("sid=S; theme=dark") with its value: a server may echo
// any of them alone.
func HeaderValues(h map[string][]string) []string {
	var out []string
	for _, vs := range h {
		for _, v := range vs {
			v = strings.TrimSpace(v)
			out = append(out, v)
			if _, cred, ok := strings.Cut(v, " "); ok {
				out = append(out, strings.TrimSpace(cred))
			}
			for part := range strings.FieldsFuncSeq(v, func(r rune) bool { return r == ';' || r == ',' }) {
				part = strings.TrimSpace(part)
				out = append(out, part)
				if _, val, ok := strings.Cut(part, "="); ok {
					out = append(out, strings.Trim(strings.TrimSpace(val), `"`))
				}
			}
		}
	}
	return out
}

// With returns t with more secrets: header values the program set, a
// password given apart from the target.
func (t Target) With(secrets ...string) Target {
	t.secrets = append(slices.Clone(t.secrets), secrets...)
	return t.tidy()
}

// Join returns t with the secrets and swaps of others too: a service's
// replicas, one attempt's new credentials. t's shown form stays.
func (t Target) Join(others ...Target) Target {
	t.secrets, t.swaps = slices.Clone(t.secrets), slices.Clone(t.swaps)
	for _, o := range others {
		t.secrets = append(t.secrets, o.secrets...)
		t.swaps = append(t.swaps, o.swaps...)
	}
	return t.tidy()
}

// tidy drops the secrets too short to mask in text and duplicates, and
// derives the masks: every secret's forms, longest first, so that a secret
// inside another does not leave a piece.
func (t Target) tidy() Target {
	t.secrets = slices.DeleteFunc(t.secrets, func(s string) bool { return len(s) < MinSecret })
	slices.Sort(t.secrets)
	t.secrets = slices.Compact(t.secrets)
	t.masks = nil
	for _, s := range t.secrets {
		t.masks = append(t.masks, forms(s)...)
	}
	slices.SortFunc(t.masks, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	t.masks = slices.Compact(t.masks)
	// A raw URL goes before the query pairs inside it.
	slices.SortStableFunc(t.swaps, func(a, b [2]string) int { return len(b[0]) - len(a[0]) })
	t.swaps = slices.Compact(t.swaps)
	return t
}

// Shown returns the target as it may be shown: a Name, a log line, a
// metric label.
func (t Target) Shown() string { return t.shown }

// Text returns s with the target masked: each raw target replaced by its
// shown form, every secret query pair and every secret in any of its forms
// masked, then what the heuristics of the package-level Text find.
func (t Target) Text(s string) string {
	for _, sw := range t.swaps {
		s = strings.ReplaceAll(s, sw[0], sw[1])
	}
	for _, m := range t.masks {
		s = strings.ReplaceAll(s, m, Mask)
	}
	return guess(s)
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
