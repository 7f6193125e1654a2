package redialtest

import (
	"errors"
	"strings"
	"testing"
)

// wantIs fails t unless err wraps target; what says what err is.
func wantIs(t testing.TB, err, target error, what string) bool {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s does not wrap %v: %v", what, target, err)
		return false
	}
	return true
}

// wantSays fails t unless err's text holds sub.
func wantSays(t testing.TB, err error, sub, what string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), sub) {
		t.Errorf("%s does not say %q: %v", what, sub, err)
	}
}

// mustNot fails t now when err is not nil.
func mustNot(t testing.TB, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}
