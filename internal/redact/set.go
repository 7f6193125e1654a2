package redact

import (
	"slices"
	"sync"
	"sync/atomic"
)

// Recent is how many calls of a per-attempt hook a Set remembers.
const Recent = 16

// Set is the secret set of one supervisor: what the program gave when it
// built it, and what a per-attempt hook (a rotating token) set in its last
// Recent calls. Every text and error that may be shown passes it, before
// and after the supervisor's Run has returned. A Set is safe for
// concurrent use; Text and Error take no lock.
type Set struct {
	mu     sync.Mutex
	base   Target
	recent []Target // oldest first
	all    atomic.Pointer[Target]
}

// NewSet returns the Set of base: the target's, the header's and any
// other secrets the program gave.
func NewSet(base Target) *Set {
	s := &Set{base: base}
	s.all.Store(&base) // a copy: Remember and Add store a new Target
	return s
}

// Remember adds what one hook call set. The secrets of the last Recent
// calls that set something new are kept; a call that repeats an earlier
// one's makes it the newest again.
func (s *Set) Remember(t Target) {
	s.mu.Lock()
	defer s.mu.Unlock()
	same := func(o Target) bool { return slices.Equal(o.masks, t.masks) && slices.Equal(o.swaps, t.swaps) }
	if n := len(s.recent); n > 0 && same(s.recent[n-1]) {
		return
	}
	s.recent = slices.DeleteFunc(s.recent, same)
	s.recent = append(s.recent, t)
	if len(s.recent) > Recent {
		s.recent = slices.Delete(s.recent, 0, len(s.recent)-Recent)
	}
	all := s.base.Join(s.recent...)
	s.all.Store(&all)
}

// Text returns text with every secret of the set masked; see Target.Text.
func (s *Set) Text(text string) string { return s.all.Load().Text(text) }

// Error returns err masked by the set, keeping only keep and err's backoff
// marks; see Target.Error.
func (s *Set) Error(err error, keep ...error) error { return s.all.Load().Error(err, keep...) }
