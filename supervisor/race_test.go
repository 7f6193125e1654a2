//go:build race

package supervisor_test

// raceEnabled: the race detector doubles the stack guard, so every
// goroutine needs a 4 KiB stack at least.
const raceEnabled = true
