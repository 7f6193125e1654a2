package redialtest

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

// badOptions: every bad option is one error that wraps
// supervisor.ErrInvalidOptions and says `<pkg>: <Field> <value>: <what>`
// once; no client comes with it. A bad Backoff keeps
// backoff.ErrInvalidOptions too.
func badOptions(e *env) {
	t, h := e.t, e.h
	pkg, under := h.Pkg, "Supervisor."
	if pkg == "" {
		pkg, under = "supervisor", ""
	}
	for _, b := range []struct {
		field, want string
		set         func(*supervisor.Settings)
	}{
		{"ConnectTimeout", "", func(s *supervisor.Settings) { s.ConnectTimeout = -time.Second }},
		{"MaxAttempts", "", func(s *supervisor.Settings) { s.MaxAttempts = -1 }},
		{"StableAfter", "", func(s *supervisor.Settings) { s.StableAfter = -time.Second }},
		{"Backoff.Base", "", func(s *supervisor.Settings) { s.Backoff.Base = -time.Second }},
		{"", "Backoff.Cap 48h0m0s: longer than 24h0m0s", func(s *supervisor.Settings) { s.Backoff.Cap = 48 * time.Hour }},
	} {
		o := e.defaults()
		b.set(&o.Settings)
		c, err := h.New(t, e.p.Addr(), o)
		field, want := b.field, b.want
		if field != "" {
			field = under + field
		} else {
			want = pkg + ": " + under + want
		}
		checkBad(t, pkg, field, want, err)
		if strings.Contains(field+want, "Backoff") && !errors.Is(err, backoff.ErrInvalidOptions) {
			t.Errorf("a bad Backoff loses backoff.ErrInvalidOptions: %v", err)
		}
		if !isNil(c) {
			t.Errorf("a client came with the error for %s", field+want)
		}
	}
	for _, b := range h.Bad {
		checkBad(t, pkg, b.Field, b.Want, b.New())
	}
}

// isNil reports whether c is nil or a nil pointer (New returning
// supervisor.New's results as they are).
func isNil(c Client) bool {
	v := reflect.ValueOf(c)
	return c == nil || v.Kind() == reflect.Pointer && v.IsNil()
}

func checkBad(t testing.TB, pkg, field, want string, err error) {
	t.Helper()
	if field == "" { // the field Want names
		field = strings.TrimPrefix(want, pkg+": ")
		field = field[:strings.IndexAny(field+" ", " :")]
	}
	if err == nil {
		t.Errorf("a bad %s is accepted", field)
		return
	}
	msg := err.Error()
	wantIs(t, err, supervisor.ErrInvalidOptions, "the error for a bad "+field)
	if want != "" && msg != want {
		t.Errorf("the error for a bad %s is %q, want %q", field, msg, want)
	}
	prefix := pkg + ": " + field
	if !strings.HasPrefix(msg, prefix+" ") && !strings.HasPrefix(msg, prefix+":") {
		t.Errorf("%q does not begin with %q", msg, prefix)
	}
	if n := strings.Count(msg, pkg+": "); n != 1 {
		t.Errorf("%q says %q %d times, want once", msg, pkg+": ", n)
	}
}
