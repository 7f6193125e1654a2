// Package chaos is redial's chaos suite: many supervisors at once under a
// seeded fault schedule, with the library's promises checked as
// invariants. See the package documentation below for what runs.
package chaos
