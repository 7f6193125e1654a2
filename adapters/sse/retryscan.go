package sse

import (
	"bytes"
	"math"
	"strconv"
	"time"
)

// retryScan finds a stream's `retry:` fields in the bytes its body reads
// bring: go-sse's OnRetry cannot tell `retry: 0` from no field (its
// backoff takes 0 for "none"), and 0 is a reconnection time like any
// other (WHATWG: an all-digit value sets it). Watch's goroutine only.
type retryScan struct {
	line [32]byte // the line so far, while it may be a retry field
	n    int
	skip bool // the line is not one
	last time.Duration
	seen bool // last holds a field's value
}

const retryField = "retry:"

// scan reads p, the next bytes of the stream.
func (s *retryScan) scan(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexAny(p, "\r\n")
		seg := p
		if i >= 0 {
			seg = p[:i]
		}
		if !s.skip && s.n+len(seg) <= len(s.line) {
			s.n += copy(s.line[s.n:], seg)
			m := min(s.n, len(retryField))
			s.skip = string(s.line[:m]) != retryField[:m]
		} else {
			s.skip = true // longer than any value ParseInt takes
		}
		if i < 0 {
			return
		}
		s.end()
		p = p[i+1:]
	}
}

// end ends the line: a retry field with an all-digit value sets last.
func (s *retryScan) end() {
	if !s.skip && s.n >= len(retryField) {
		v := s.line[len(retryField):s.n]
		v, _ = bytes.CutPrefix(v, []byte(" "))
		if len(v) > 0 && !bytes.ContainsFunc(v, func(r rune) bool { return r < '0' || r > '9' }) {
			if ms, err := strconv.ParseInt(string(v), 10, 64); err == nil && ms <= math.MaxInt64/int64(time.Millisecond) {
				s.last, s.seen = time.Duration(ms)*time.Millisecond, true
			}
		}
	}
	s.n, s.skip = 0, false
}
