package postgres

import "sync"

// answers keeps, for a DSN with several hosts, whether each endpoint's
// last answer since the last connection was permanent: one host's "no"
// (a standby without the pg_hba.conf entry) ends nothing while another
// may answer. The connectors say where an attempt goes (at) and when one
// succeeded (ok); classify records the answers. nil: one host.
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
