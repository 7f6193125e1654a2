//go:build !race

package supervisor_test

const raceEnabled = false
