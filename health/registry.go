package health

import "sync"

// Registry gathers the Sources of a program for its readiness and liveness
// probes, which package healthhttp serves. The zero Registry is empty and
// ready to use; it is safe for concurrent use. Sources' Status methods are
// called without the Registry's lock held.
type Registry struct {
	mu      sync.Mutex
	entries []entry
}

type entry struct {
	name     string
	source   Source
	critical bool
}

// Entry is one source's Status as the Registry saw it.
type Entry struct {
	Name     string
	Critical bool
	Status   Status
	Source   Source // as added; a HistorySource also tells its recent transitions
}

// Entries is one reading of every source of a Registry, in the order
// added: the probes judge and show the same reading.
type Entries []Entry

// Add registers s under name. A critical source must be Connected for the
// program to be ready, and makes it not live once it has Failed. Adding a
// name again replaces the earlier source. A nil s is kept and reported as
// never ready (state idle, error "nil source"), so the mistake shows.
func (r *Registry) Add(name string, s Source, critical bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.entries {
		if r.entries[i].name == name {
			r.entries[i] = entry{name, s, critical}
			return
		}
	}
	r.entries = append(r.entries, entry{name, s, critical})
}

// Remove unregisters name; it reports whether it was there.
func (r *Registry) Remove(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.entries {
		if r.entries[i].name == name {
			r.entries = append(r.entries[:i], r.entries[i+1:]...)
			return true
		}
	}
	return false
}

// Entries returns every source's current Status, in the order added. It
// calls the sources' Status methods without the Registry's lock held.
func (r *Registry) Entries() Entries {
	r.mu.Lock()
	es := append([]entry(nil), r.entries...)
	r.mu.Unlock()
	out := make(Entries, len(es))
	for i, e := range es {
		out[i] = Entry{Name: e.name, Critical: e.critical, Source: e.source}
		if e.source == nil {
			out[i].Status = Status{Name: e.name, State: Idle, Err: errNilSource}
			continue
		}
		out[i].Status = e.source.Status()
	}
	return out
}

// Ready reports whether every critical source is Connected. A Registry
// without critical sources is ready.
func (r *Registry) Ready() bool { return r.Entries().Ready() }

// Live reports whether no critical source has Failed. A connection that is
// down but still retrying keeps the program live: restarting it would not
// bring the server back, only lose the backoff's progress.
func (r *Registry) Live() bool { return r.Entries().Live() }

// Ready reports whether every critical entry is Connected.
func (es Entries) Ready() bool {
	for _, e := range es {
		if e.Critical && e.Status.State != Connected {
			return false
		}
	}
	return true
}

// Live reports whether no critical entry has Failed.
func (es Entries) Live() bool {
	for _, e := range es {
		if e.Critical && e.Status.State == Failed {
			return false
		}
	}
	return true
}

type sourceError string

func (e sourceError) Error() string { return string(e) }

const errNilSource = sourceError("nil source")
