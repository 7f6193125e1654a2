package health

import (
	"fmt"
	"time"
)

// Status is a snapshot of one connection's health. It is a value: copying it
// is safe, and nothing in it changes after it was taken.
type Status struct {
	Name                string
	State               State
	Endpoint            string    // the endpoint of the live connection or of the last attempt, with several endpoints; "" with one
	Since               time.Time // when State began
	ConsecutiveFailures int       // failed attempts in a row; 0 once connected
	Err                 error     // the last error, credentials redacted; nil until one happens
	NextAttempt         time.Time // when the next attempt is due; set in Backoff only
	Connects            uint64    // connections established so far

	// Over time, for when something flaps.
	Failures             uint64        // failed attempts so far
	LastFailure          time.Time     // when the last attempt failed or the connection was lost
	LongestOutage        time.Duration // longest time from losing a connection to having one again, the current outage included
	ReconnectsLastMinute int           // connections established in the last minute after a loss or a replacement
}

// Uptime returns how long the connection has been Connected at now, or 0.
func (s Status) Uptime(now time.Time) time.Duration {
	if s.State != Connected || s.Since.IsZero() {
		return 0
	}
	return max(now.Sub(s.Since), 0)
}

// RetryIn returns how long until the next attempt at now; 0 outside Backoff.
func (s Status) RetryIn(now time.Time) time.Duration {
	if s.State != Backoff || s.NextAttempt.IsZero() {
		return 0
	}
	return max(s.NextAttempt.Sub(now), 0)
}

// Source is anything that reports a Status, such as a supervisor.
// Status must be safe for concurrent use and must not block.
type Source interface{ Status() Status }

// SourceFunc adapts a function to a Source.
type SourceFunc func() Status

// Status calls f.
func (f SourceFunc) Status() Status { return f() }

// EndpointSource is a Source with several endpoints (a supervisor's
// replicas): Endpoints returns each one's health, in order; nil with one.
// The Registry reads it right after Status.
type EndpointSource interface {
	Source
	Endpoints() []EndpointStatus
}

// EndpointStatus is the health of one endpoint of a supervisor.
type EndpointStatus struct {
	Name                string // redacted, as Status.Endpoint
	State               EndpointState
	Preferred           bool      // the supervisor fails back to it (PreferFirst)
	ConsecutiveFailures int       // failed attempts in a row on it; a server's hint is not counted
	Ejections           int       // ejections in a row; 0 once a connection was made on it
	EjectedUntil        time.Time // when the current or last ejection ends; zero if none
}

// EndpointState is an endpoint's health.
type EndpointState int

const (
	EndpointHealthy EndpointState = iota // tried in turn
	EndpointEjected                      // failed too often: skipped until EjectedUntil
	EndpointProbing                      // its ejection ended: its next attempt decides
)

// EndpointStates returns every EndpointState, for metrics.
func EndpointStates() []EndpointState {
	return []EndpointState{EndpointHealthy, EndpointEjected, EndpointProbing}
}

var endpointStateNames = [...]string{"healthy", "ejected", "probing"}

func (s EndpointState) String() string {
	if s >= 0 && int(s) < len(endpointStateNames) {
		return endpointStateNames[s]
	}
	return fmt.Sprintf("endpoint-state(%d)", int(s))
}

// MarshalText encodes the state as its String.
func (s EndpointState) MarshalText() ([]byte, error) { return []byte(s.String()), nil }
