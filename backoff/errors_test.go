package backoff_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/redial-go/redial/backoff"
)

func TestPermanentKeepsTextAndChain(t *testing.T) {
	base := &fs.PathError{Op: "open", Path: "/x", Err: fs.ErrNotExist}
	err := backoff.Permanent(base)
	assert.True(t, backoff.IsPermanent(err))
	assert.Equal(t, base.Error(), err.Error())
	assert.ErrorIs(t, err, fs.ErrNotExist)
	var pe *fs.PathError
	assert.ErrorAs(t, err, &pe)

	wrapped := errors.Join(errors.New("ctx"), err)
	assert.True(t, backoff.IsPermanent(wrapped), "permanence must survive wrapping")
	assert.False(t, backoff.IsPermanent(base))
	assert.False(t, backoff.IsPermanent(nil))
	assert.NoError(t, backoff.Permanent(nil))
}

func TestRetryAfterHint(t *testing.T) {
	base := errors.New("busy")
	err := backoff.RetryAfter(base, 7*time.Second)
	d, ok := backoff.RetryAfterHint(err)
	assert.True(t, ok)
	assert.Equal(t, 7*time.Second, d)
	assert.Equal(t, "busy", err.Error())
	assert.ErrorIs(t, err, base)
	assert.False(t, backoff.IsPermanent(err))

	_, ok = backoff.RetryAfterHint(base)
	assert.False(t, ok)
	_, ok = backoff.RetryAfterHint(backoff.RetryAfter(base, -time.Second))
	assert.False(t, ok, "a negative hint is no hint")
	assert.NoError(t, backoff.RetryAfter(nil, time.Second))

	both := backoff.Permanent(backoff.RetryAfter(base, time.Second))
	assert.True(t, backoff.IsPermanent(both))
	d, ok = backoff.RetryAfterHint(both)
	assert.True(t, ok)
	assert.Equal(t, time.Second, d)
}

type customHint struct{}

func (customHint) Error() string             { return "custom" }
func (customHint) RetryAfter() time.Duration { return 3 * time.Second }

func TestHintFromAnyErrorWithRetryAfterMethod(t *testing.T) {
	d, ok := backoff.RetryAfterHint(errors.Join(errors.New("x"), customHint{}))
	assert.True(t, ok)
	assert.Equal(t, 3*time.Second, d)
}

func TestClampedHint(t *testing.T) {
	err := backoff.RetryAfter(errors.New("busy"), time.Hour)
	assert.Equal(t, time.Minute, backoff.ClampedHint(err, time.Minute))
	assert.Equal(t, time.Hour, backoff.ClampedHint(err, 2*time.Hour))
	assert.Zero(t, backoff.ClampedHint(err, 0), "maxHint 0: no hint honored")
	assert.Zero(t, backoff.ClampedHint(errors.New("plain"), time.Hour))
}

// notFinal has a Permanent method that says no, and wraps err.
type notFinal struct{ err error }

func (e notFinal) Error() string   { return "not final: " + e.err.Error() }
func (e notFinal) Unwrap() error   { return e.err }
func (e notFinal) Permanent() bool { return false }

func TestIsPermanentSearchesTheWholeTree(t *testing.T) {
	final := backoff.Permanent(errors.New("401"))
	for name, err := range map[string]error{
		"under an error whose Permanent says no": notFinal{final},
		"joined after such an error":             errors.Join(notFinal{errors.New("x")}, final),
		"wrapped twice inside a join":            fmt.Errorf("dial: %w", errors.Join(errors.New("a"), fmt.Errorf("b: %w", final))),
		"outside a Retryable":                    errors.Join(backoff.Retryable(errors.New("1008")), final),
		"marked again over a Retryable":          backoff.Permanent(backoff.Retryable(final)),
	} {
		assert.True(t, backoff.IsPermanent(err), name)
	}
	for name, err := range map[string]error{
		"Retryable over Permanent":        backoff.Retryable(final),
		"wrapped Retryable":               fmt.Errorf("feed: %w", backoff.Retryable(fmt.Errorf("close: %w", final))),
		"Retryable over a join of finals": backoff.Retryable(errors.Join(final, backoff.Permanent(errors.New("403")))),
		"no mark anywhere":                errors.Join(errors.New("a"), notFinal{errors.New("b")}),
	} {
		assert.False(t, backoff.IsPermanent(err), name)
	}
}

func TestRetryableKeepsTextChainAndHint(t *testing.T) {
	base := &fs.PathError{Op: "open", Path: "/x", Err: fs.ErrNotExist}
	err := backoff.Retryable(backoff.Permanent(backoff.RetryAfter(base, 3*time.Second)))
	assert.Equal(t, base.Error(), err.Error())
	assert.ErrorIs(t, err, fs.ErrNotExist)
	var pe *fs.PathError
	assert.ErrorAs(t, err, &pe)
	d, ok := backoff.RetryAfterHint(err)
	assert.True(t, ok)
	assert.Equal(t, 3*time.Second, d)
	assert.NoError(t, backoff.Retryable(nil))
}

func TestRetryRetriesALiftedError(t *testing.T) {
	calls := 0
	_, err := backoff.Retry(t.Context(), func(context.Context) (int, error) {
		calls++
		return 0, backoff.Retryable(backoff.Permanent(errors.New("401")))
	}, backoff.RetryOptions{Attempts: 3, Backoff: backoff.Config{Base: time.Microsecond, Cap: time.Microsecond}})
	assert.Error(t, err)
	assert.Equal(t, 3, calls)
}

func TestIsPermanentAllocatesNothing(t *testing.T) {
	err := fmt.Errorf("a: %w", errors.Join(errors.New("b"), backoff.Retryable(backoff.Permanent(errors.New("c"))), backoff.Permanent(errors.New("d"))))
	assert.Zero(t, testing.AllocsPerRun(100, func() { backoff.IsPermanent(err) }))
}
