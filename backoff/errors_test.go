package backoff_test

import (
	"errors"
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
