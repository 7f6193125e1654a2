package health

import (
	"fmt"
	"sync"
	"time"
)

// Registry gathers a program's Sources for its readiness and liveness
// probes. The zero Registry is empty and ready to use; it is safe for
// concurrent use, and calls Sources without its lock held.
type Registry struct {
	mu      sync.Mutex
	entries []entry
}

type entry struct {
	name   string
	source Source
	opts   SourceOptions
}

// SourceOptions says how a source counts for the probes; the zero value
// counts for neither.
type SourceOptions struct {
	// Critical: ready only while the source is Connected, not live once it
	// has Failed.
	Critical bool
	// MaxLag: a critical LagSource whose Lag().Oldest exceeds it makes the
	// program not ready; 0 means lag does not count.
	MaxLag time.Duration
}

// Entry is one source's Status as the Registry saw it.
type Entry struct {
	Name     string
	Critical bool
	MaxLag   time.Duration
	Status   Status
	Lag      Lag   // a LagSource's, read right after Status; zero for other sources
	Degraded error // a DegradedSource's, read right after Status; nil for other sources
	Draining bool  // a DrainingSource's, read before Status; false for other sources
	// Endpoints is an EndpointSource's, read right after Status; nil for
	// other sources and with one endpoint.
	Endpoints []EndpointStatus
	Source    Source // as added; a HistorySource also tells its recent transitions
}

// Lagging reports whether the entry's program is behind its MaxLag.
func (e Entry) Lagging() bool { return e.MaxLag > 0 && e.Lag.Oldest > e.MaxLag }

// Entries is one reading of every source of a Registry, in the order
// added: the probes judge and show the same reading.
type Entries []Entry

// Add registers s under name as o says (zero: not critical, no MaxLag),
// replacing a source of that name. A nil s or a negative MaxLag shows as
// an Idle entry whose error names the mistake.
func (r *Registry) Add(name string, s Source, o SourceOptions) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.entries {
		if r.entries[i].name == name {
			r.entries[i] = entry{name, s, o}
			return
		}
	}
	r.entries = append(r.entries, entry{name, s, o})
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

// Entries returns every source's current Status (Lag, Degraded, Endpoints), in the order added.
func (r *Registry) Entries() Entries {
	r.mu.Lock()
	es := append([]entry(nil), r.entries...)
	r.mu.Unlock()
	out := make(Entries, len(es))
	for i, e := range es {
		out[i] = Entry{Name: e.name, Critical: e.opts.Critical, MaxLag: e.opts.MaxLag, Source: e.source}
		switch {
		case e.source == nil:
			out[i].Status = Status{Name: e.name, State: Idle, Err: errNilSource}
		case e.opts.MaxLag < 0:
			out[i].Status = Status{Name: e.name, State: Idle, Err: sourceError(fmt.Sprintf("health: MaxLag %v: negative", e.opts.MaxLag))}
		default:
			if d, ok := e.source.(DrainingSource); ok {
				out[i].Draining = d.Draining() // first: a drain that began is not missed by a Status read before it
			}
			out[i].Status = e.source.Status()
			if l, ok := e.source.(LagSource); ok {
				out[i].Lag = l.Lag()
			}
			if d, ok := e.source.(DegradedSource); ok {
				out[i].Degraded = d.Degraded()
			}
			if d, ok := e.source.(EndpointSource); ok {
				out[i].Endpoints = d.Endpoints()
			}
		}
	}
	return out
}

// Ready reports whether every critical source is Connected, not draining, within MaxLag and not degraded.
func (r *Registry) Ready() bool { return r.Entries().Ready() }

// Live reports whether no critical source has Failed. A connection that is
// down but still retrying keeps the program live: restarting it would not
// bring the server back, only lose the backoff's progress.
func (r *Registry) Live() bool { return r.Entries().Live() }

// Ready reports whether every critical entry is Connected, not Draining, not Lagging and not Degraded.
func (es Entries) Ready() bool {
	for _, e := range es {
		if e.Critical && (e.Status.State != Connected || e.Draining || e.Lagging() || e.Degraded != nil) {
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
