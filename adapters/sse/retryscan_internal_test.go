package sse

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestRetryScan: the fields go-sse takes as `retry:`, however the reads
// split them; a value that is not all digits is no field.
func TestRetryScan(t *testing.T) {
	for _, tc := range []struct {
		reads []string
		want  time.Duration
		seen  bool
	}{
		{[]string{"retry: 0\n"}, 0, true},
		{[]string{"retry:250\r"}, 250 * time.Millisecond, true},
		{[]string{"ret", "ry: 1", "5\r\n"}, 15 * time.Millisecond, true},
		{[]string{"retry: 7\n", "retry: x\n", "retry: -1\n", "retry:  3\n"}, 7 * time.Millisecond, true},
		{[]string{"data: retry: 5\n", "retry: 5"}, 0, false}, // the last line is not ended
		{[]string{"retry: 99999999999999999999\n"}, 0, false},
		{[]string{"retryx: 5\n", ": retry: 5\n"}, 0, false},
	} {
		var s retryScan
		for _, r := range tc.reads {
			s.scan([]byte(r))
		}
		assert.Equal(t, tc.seen, s.seen, "%q", tc.reads)
		assert.Equal(t, tc.want, s.last, "%q", tc.reads)
	}
}
