package redact

import (
	"encoding/base64"
	"strings"
)

// Named returns the Target of secrets a program named (an API key, a
// cookie's value, a "user:password"): each value with its URL encodings
// and its base64 (a Basic authorization of "user:password"), and no shown
// form.
func Named(secrets ...string) Target {
	all := make([]string, 0, 2*len(secrets))
	for _, s := range secrets {
		if len(s) >= MinSecret {
			all = append(all, s, base64.StdEncoding.EncodeToString([]byte(s)))
		}
	}
	return Target{}.With(all...)
}

// Holds reports whether s holds one of t's secrets or raw targets.
func (t Target) Holds(s string) bool {
	for _, m := range t.masks {
		if strings.Contains(s, m) {
			return true
		}
	}
	for _, sw := range t.swaps {
		if strings.Contains(s, sw[0]) {
			return true
		}
	}
	return false
}

// Add joins t to the secrets the program gave: Settings.Secrets named
// beside an adapter's own.
func (s *Set) Add(t Target) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.base = s.base.Join(t)
	all := s.base.Join(s.recent...)
	s.all.Store(&all)
}
