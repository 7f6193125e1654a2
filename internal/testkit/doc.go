// Package testkit holds the helpers that tests across the module share:
// waiting on a health channel, recording the states it shows, and a
// goroutine-safe buffer for logs and program output. Only tests import it.
package testkit
