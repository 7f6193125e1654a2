// Package opterr builds the one error every constructor of the module
// returns for a bad option: `<package>: <Field> <value>: <what is wrong>`,
// wrapping ErrInvalid (supervisor.ErrInvalidOptions).
package opterr

import (
	"errors"
	"fmt"
	"time"
)

// ErrInvalid is wrapped by every bad-option error of the module.
var ErrInvalid = errors.New("invalid options")

// MaxDuration is the longest duration option: more is a unit's mistake.
const MaxDuration = 24 * time.Hour

// Error is one bad option. Value is already formatted ("" when the field's
// value says nothing, such as a nil func).
type Error struct {
	Pkg     string // the package that reports it: "websocket"
	Field   string // the option's path from the constructor's argument: "Supervisor.Backoff.Cap"
	Value   string
	Problem string
}

func (e *Error) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("%s: %s: %s", e.Pkg, e.Field, e.Problem)
	}
	return fmt.Sprintf("%s: %s %s: %s", e.Pkg, e.Field, e.Value, e.Problem)
}

func (e *Error) Unwrap() error { return ErrInvalid }

// New returns the error for field of pkg with value v: strings are quoted,
// everything else printed with %v; a nil v prints nothing. problem is a
// format for args.
func New(pkg, field string, v any, problem string, args ...any) *Error {
	return &Error{Pkg: pkg, Field: field, Value: Format(v), Problem: fmt.Sprintf(problem, args...)}
}

// Duration checks a duration option: the error for field of pkg when d
// is negative or longer than MaxDuration, else nil.
func Duration(pkg, field string, d time.Duration) error {
	switch {
	case d < 0:
		return New(pkg, field, d, "negative")
	case d > MaxDuration:
		return New(pkg, field, d, "longer than %v", MaxDuration)
	}
	return nil
}

// Format formats an option's value the way New does.
func Format(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return fmt.Sprintf("%q", v)
	}
	return fmt.Sprint(v)
}

// Nest returns err as pkg's error about the option at prefix: a backoff
// error about Cap becomes `supervisor: Backoff.Cap ...`, and that one
// `websocket: Supervisor.Backoff.Cap ...`. An err that is not an *Error
// is wrapped as the whole option's problem.
func Nest(err error, pkg, prefix string) error {
	if err == nil {
		return nil
	}
	var e *Error
	if !errors.As(err, &e) {
		return &Error{Pkg: pkg, Field: prefix, Problem: err.Error()}
	}
	n := *e
	n.Pkg = pkg
	if prefix != "" {
		n.Field = prefix + "." + e.Field
	}
	return &n
}
