package supervisor

import "errors"

// ErrPanicked is wrapped by the error of a supervisor whose callback
// panicked (DESIGN v3, "Callback panics").
//
// Placeholder for the conformance suite to compile against: the
// supervisor's recovery, and its own ErrPanicked, come with branch s-core,
// which replaces this file.
var ErrPanicked = errors.New("a callback panicked")
