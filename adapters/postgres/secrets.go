package postgres

import (
	"slices"
	"sync"
)

// maxHookSecrets is how many of the passwords BeforeConnect set are
// remembered: the newest, which an error can still carry.
const maxHookSecrets = 16

// secretSet is what must never be shown of one Conn, Listener or Pool: the
// DSN's password and its raw forms, and the passwords BeforeConnect set.
// It is safe for concurrent use.
type secretSet struct {
	fixed []string

	mu   sync.Mutex
	hook []string // oldest first, at most maxHookSecrets
}

func newSecretSet(fixed []string) *secretSet { return &secretSet{fixed: fixed} }

// add remembers a password BeforeConnect set.
func (s *secretSet) add(password string) {
	if password == "" || slices.Contains(s.fixed, password) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := slices.Index(s.hook, password); i >= 0 {
		s.hook = slices.Delete(s.hook, i, i+1) // newest again
	}
	if len(s.hook) == maxHookSecrets {
		s.hook = slices.Delete(s.hook, 0, 1)
	}
	s.hook = append(s.hook, password)
}

func (s *secretSet) all() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.hook) == 0 {
		return s.fixed
	}
	return append(slices.Clone(s.fixed), s.hook...)
}
