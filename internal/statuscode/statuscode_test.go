package statuscode_test

import (
	"errors"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/statuscode"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"7":                       7 * time.Second,
		" 120 ":                   2 * time.Minute,
		"0":                       0,
		"":                        0,
		"abc":                     0,
		"-5":                      0,
		"1.5":                     0,
		"+5":                      0,
		"315360000":               315360000 * time.Second, // ten years: the supervisor clamps it
		"99999999999999999999999": math.MaxInt64,           // saturates
		now.Add(30 * time.Second).Format(http.TimeFormat): 30 * time.Second,
		now.Add(-time.Hour).Format(http.TimeFormat):       0, // in the past
		now.Format(http.TimeFormat):                       0,
		"Mon, 32 Foo 2030 99:00:00 GMT":                   0,
	} {
		assert.Equal(t, want, statuscode.RetryAfter(v, now), "Retry-After %q", v)
	}
}

func TestReasonHint(t *testing.T) {
	for reason, want := range map[string]time.Duration{
		"retry-after=9":               9 * time.Second,
		"overloaded; Retry-After: 30": 30 * time.Second,
		"RETRY-AFTER = 2":             2 * time.Second,
		"retry-after=0":               0,
		"retry-after=-3":              0,
		"retry-after=soon":            0,
		"deploying":                   0,
		"retry-after=12a":             0,
		"xretry-after=5":              0,
		"a retry-after=x retry-after=3; retry-after=7": 3 * time.Second,
		"(retry-after=4)": 4 * time.Second,
		"":                0,
	} {
		d, ok := statuscode.ReasonHint(reason)
		assert.Equal(t, want, d, "reason %q", reason)
		assert.Equal(t, want > 0, ok, "reason %q", reason)
	}
}

func TestHTTP(t *testing.T) {
	err := errors.New("answered")
	for _, code := range []int{401, 403, 404} {
		assert.True(t, backoff.IsPermanent(statuscode.HTTP(err, code, 0)), "%d", code)
	}
	for _, code := range []int{429, 503} {
		d, ok := backoff.RetryAfterHint(statuscode.HTTP(err, code, 3*time.Second))
		assert.True(t, ok)
		assert.GreaterOrEqual(t, d, 3*time.Second)
		assert.Less(t, d, 4*time.Second, "spread over the second it names")
		assert.Same(t, err, statuscode.HTTP(err, code, 0), "no Retry-After: an ordinary retry")
	}
	assert.Same(t, err, statuscode.HTTP(err, 500, time.Second))
}

func TestClose(t *testing.T) {
	err := errors.New("closed")
	hint := func() time.Duration { return 5 * time.Second }
	assert.True(t, backoff.IsPermanent(statuscode.Close(err, 1008, "", hint)))
	for _, code := range []int{1012, 1013} {
		d, _ := backoff.RetryAfterHint(statuscode.Close(err, code, "deploying", hint))
		assert.Equal(t, 5*time.Second, d)
		d, _ = backoff.RetryAfterHint(statuscode.Close(err, code, "retry-after=9", hint))
		assert.GreaterOrEqual(t, d, 9*time.Second)
		assert.Less(t, d, 10*time.Second, "spread over the second it names")
	}
	for _, code := range []int{1000, 1001, 1006, 1011} {
		assert.Same(t, err, statuscode.Close(err, code, "", hint))
	}
	assert.True(t, statuscode.Classified(backoff.Permanent(err)))
	assert.True(t, statuscode.Classified(backoff.RetryAfter(err, time.Second)))
	assert.False(t, statuscode.Classified(err))
}
