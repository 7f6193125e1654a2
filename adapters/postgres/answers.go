package postgres

import "sync"

// answers keeps, for a DSN with several hosts, whether each endpoint's
// last answer since the last connection was one that retrying cannot fix
// (28P01, 28000, 3D000; with BeforeConnect only 3D000). A host's "no" ends
// the supervisor only once every host said so: a primary refusing logins
// while it restarts, next to a standby without the pg_hba.conf entry, is
// retried. The connectors say which endpoint an attempt goes to (at) and
// when one succeeded (ok); the adapter's Classify, which the supervisor
// runs on every attempt's error and every lost connection's reason,
// records the answer of the current endpoint (record). The supervisor
// makes these calls one at a time, from its goroutine and its attempt's;
// the lock makes that visible to the race detector too. A nil *answers (one
// host) decides by the one answer.
type answers struct {
	mu        sync.Mutex
	current   int
	permanent []bool
}

func newAnswers(n int) *answers { return &answers{permanent: make([]bool, n)} }

// at says that the next answers come from endpoint i.
func (a *answers) at(i int) {
	if a == nil {
		return
	}
	a.mu.Lock()
	a.current = i
	a.mu.Unlock()
}

// ok says a connection was made: every answer before it is forgotten.
func (a *answers) ok() {
	if a == nil {
		return
	}
	a.mu.Lock()
	clear(a.permanent)
	a.mu.Unlock()
}

// record keeps whether the current endpoint's answer was permanent and
// returns whether every endpoint's last answer was.
func (a *answers) record(permanent bool) bool {
	if a == nil {
		return permanent
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.permanent[a.current] = permanent
	for _, p := range a.permanent {
		if !p {
			return false
		}
	}
	return true
}
