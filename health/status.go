package health

import "time"

// Status is a snapshot of one connection's health. It is a value: copying it
// is safe, and nothing in it changes after it was taken.
type Status struct {
	Name        string
	State       State
	Since       time.Time // when State began
	Attempt     int       // consecutive failed attempts; 0 once connected
	Err         error     // the last error, credentials redacted; nil until one happens
	NextAttempt time.Time // when the next attempt is due; set in Backoff only
	Connects    uint64    // connections established so far
}

// Source is anything that reports a Status, such as a supervisor.
// Status must be safe for concurrent use and must not block.
type Source interface{ Status() Status }

// SourceFunc adapts a function to a Source.
type SourceFunc func() Status

// Status calls f.
func (f SourceFunc) Status() Status { return f() }
