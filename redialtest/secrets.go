package redialtest

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Where the secrets go in a target.
const (
	QueryKey    = "sid"     // a query key that no list of credential names has
	TokenHeader = "X-Token" // the header an HTTP adapter's BeforeConnect sets
	User        = "alice"   // the userinfo's user name: not a secret
)

// Secrets are the credentials a case gives a client. None of them may be
// shown, in any form a transport derives from them. Every one holds a '/'
// and a '+', so that its URL encodings differ from it.
type Secrets struct {
	Password string // the userinfo's password: Basic authorization over HTTP
	Query    string // the value of QueryKey in the url
	Cookie   string // the value of the sid part of Header's Cookie

	mu     sync.Mutex
	tokens []string // what BeforeConnect returned, oldest first
}

// NewSecrets returns secrets no other case uses.
func NewSecrets() *Secrets {
	return &Secrets{Password: secret("pw"), Query: secret("q"), Cookie: secret("ck")}
}

func secret(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return prefix + "/" + hex.EncodeToString(b) + "+"
}

// URL returns scheme://alice:Password@host/path?room=lobby&sid=Query.
func (s *Secrets) URL(scheme, host, path string) string {
	u := url.URL{Scheme: scheme, User: url.UserPassword(User, s.Password), Host: host, Path: path,
		RawQuery: url.Values{"room": {"lobby"}, QueryKey: {s.Query}}.Encode()}
	return u.String()
}

// Header returns the header the program sets: a Cookie whose value has a
// secret part, sid=Cookie, between two that are not.
func (s *Secrets) Header() http.Header {
	return http.Header{"Cookie": {"theme=dark; sid=" + s.Cookie + "; lang=en"}}
}

// Token returns a new credential, as a rotating BeforeConnect would, and
// remembers it.
func (s *Secrets) Token() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	tok := secret(fmt.Sprintf("t%d", len(s.tokens)+1))
	s.tokens = append(s.tokens, tok)
	return tok
}

// Tokens returns every credential Token returned.
func (s *Secrets) Tokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.tokens...)
}

// form is one way a secret can be shown.
type form struct{ secret, name, text string }

// forms returns every form of every secret: as it is, its query and path
// escapes, the userinfo, and the Basic authorization net/http derives from
// the userinfo.
func (s *Secrets) forms() []form {
	var out []form
	add := func(name, v string) {
		seen := map[string]bool{}
		for _, f := range []form{{name, "raw", v}, {name, "query-escaped", url.QueryEscape(v)}, {name, "path-escaped", url.PathEscape(v)}} {
			if !seen[f.text] {
				seen[f.text] = true
				out = append(out, f)
			}
		}
	}
	add("password", s.Password)
	out = append(out, form{"password", "userinfo", url.UserPassword(User, s.Password).String()},
		form{"password", "basic authorization", base64.StdEncoding.EncodeToString([]byte(User + ":" + s.Password))})
	add("query value", s.Query)
	add("cookie part", s.Cookie)
	for i, tok := range s.Tokens() {
		add(fmt.Sprintf("BeforeConnect credential %d", i+1), tok)
	}
	return out
}

// shown collects what a client showed the program, by where it showed it.
type shown struct {
	mu    sync.Mutex
	where []string
	texts []string
}

func (s *shown) text(where, text string) {
	s.mu.Lock()
	s.where = append(s.where, where)
	s.texts = append(s.texts, text)
	s.mu.Unlock()
}

// err records err's text, its %+v and %#v forms, and every string a
// reflective logger or errors.As could reach in it.
func (s *shown) err(where string, err error) {
	if err == nil {
		return
	}
	s.text(where, err.Error())
	s.text(where+" %+v", fmt.Sprintf("%+v", err))
	s.text(where+" %#v", fmt.Sprintf("%#v", err))
	s.text(where+" (every string in its chain)", strings.Join(reachableStrings(err), "\n"))
}

// check fails t once for every form of a secret that was shown, saying
// where and showing the first text.
func (s *shown) check(t testing.TB, secrets *Secrets) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range secrets.forms() {
		var where []string
		first := ""
		for i, text := range s.texts {
			if strings.Contains(text, f.text) {
				if first == "" {
					first = excerpt(text, f.text)
				}
				w, _, _ := strings.Cut(s.where[i], " %") // Status.Err %+v is Status.Err
				w, _, _ = strings.Cut(w, " (every")
				if !slices.Contains(where, w) {
					where = append(where, w)
				}
			}
		}
		if len(where) > 0 {
			t.Errorf("the %s (%s) is shown in %s: %s", f.secret, f.name, strings.Join(where, ", "), first)
		}
	}
}

// excerpt returns the part of text around the first sub.
func excerpt(text, sub string) string {
	i := strings.Index(text, sub)
	from, to := max(0, i-120), min(len(text), i+len(sub)+60)
	return strings.TrimSpace(text[from:to])
}

// echoed checks that srv, when it is an Echoer, repeated each secret the
// harness's transport carries: a secret case is only worth something if
// the server did send the secrets back.
func echoed(t testing.TB, srv Server, secrets *Secrets, kinds ...string) {
	t.Helper()
	e, ok := srv.(Echoer)
	if !ok {
		return
	}
	all := strings.Join(e.Echoed(), "\n")
	for _, kind := range kinds {
		found := false
		for _, f := range secrets.forms() {
			found = found || f.secret == kind && strings.Contains(all, f.text)
		}
		if !found {
			t.Errorf("the server never echoed the %s: this case could not fail", kind)
		}
	}
}

// reachableStrings returns every string reflection reaches from v,
// unexported fields included: what a reflective logger could print.
func reachableStrings(v any) []string {
	var out []string
	seen := map[uintptr]bool{}
	var walk func(reflect.Value, int)
	walk = func(v reflect.Value, depth int) {
		if !v.IsValid() || depth > 50 {
			return
		}
		switch v.Kind() {
		case reflect.String:
			out = append(out, v.String())
		case reflect.Pointer:
			if v.IsNil() || seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
			walk(v.Elem(), depth+1)
		case reflect.Interface:
			walk(v.Elem(), depth+1)
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i), depth+1)
			}
		case reflect.Slice, reflect.Array:
			if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
				b := make([]byte, v.Len())
				for i := range b {
					b[i] = byte(v.Index(i).Uint())
				}
				out = append(out, string(b))
				return
			}
			for i := range v.Len() {
				walk(v.Index(i), depth+1)
			}
		case reflect.Map:
			for _, k := range v.MapKeys() {
				walk(k, depth+1)
				walk(v.MapIndex(k), depth+1)
			}
		}
	}
	walk(reflect.ValueOf(v), 0)
	return out
}
