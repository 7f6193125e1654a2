package health

import "time"

// HistoryLen is how many transitions a supervisor keeps.
const HistoryLen = 64

// Transition is one state change of a supervised connection.
type Transition struct {
	At                  time.Time
	From, To            State
	ConsecutiveFailures int           // failed attempts in a row after the change
	Delay               time.Duration // the wait before the next attempt, when To is Backoff
	Reason              string        // why the wait is that long: backoff, hint, budget, first-retry, failover
	Err                 error         // what happened, redacted: a failure, or why a connection was replaced; nil otherwise
	Endpoint            string        // the endpoint, with several
}

// HistorySource is a Source that keeps its recent transitions (a
// supervisor): History returns them oldest first and, like Status, never blocks.
type HistorySource interface {
	Source
	History() []Transition
}
