package statuscode

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryAfter reads an HTTP Retry-After value (RFC 9110 10.2.3):
// delay-seconds or an HTTP-date. It returns 0, no hint, for an empty,
// malformed or negative value and for a date that is not after now. A value
// too large for a time.Duration saturates; the supervisor clamps it to
// MaxHint.
func RetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if isDigits(v) {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n > uint64(math.MaxInt64/int64(time.Second)) {
			return math.MaxInt64 // only digits: too large
		}
		return time.Duration(n) * time.Second
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0
	}
	if d := t.Sub(now); d > 0 {
		return d
	}
	return 0
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
