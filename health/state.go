package health

import "fmt"

// State is where a connection's lifecycle stands.
type State int

const (
	Idle       State = iota // not started yet
	Connecting              // an attempt is under way (dial and OnConnect)
	Connected               // live, and OnConnect has returned nil
	Backoff                 // waiting until Status.NextAttempt
	Stopped                 // the supervisor's context ended
	Failed                  // given up: a permanent error or MaxAttempts
)

var stateNames = [...]string{"idle", "connecting", "connected", "backoff", "stopped", "failed"}

// String returns the state's lower-case name, e.g. "connected".
func (s State) String() string {
	if s >= 0 && int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("state(%d)", int(s))
}

// MarshalText encodes the state as its String.
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses a name that String returns.
func (s *State) UnmarshalText(b []byte) error {
	for i, n := range stateNames {
		if n == string(b) {
			*s = State(i)
			return nil
		}
	}
	return fmt.Errorf("health: unknown state %q", b)
}

// States lists every State in order, for metrics that export one series each.
func States() []State { return []State{Idle, Connecting, Connected, Backoff, Stopped, Failed} }
