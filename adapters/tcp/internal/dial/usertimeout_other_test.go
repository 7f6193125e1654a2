//go:build !linux

package dial

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestUserTimeoutIsLinuxOnly(t *testing.T) {
	_, err := New("tcp", "h:1", Options{UserTimeout: time.Second})
	assert.EqualError(t, err, "tcp: UserTimeout 1s: TCP_USER_TIMEOUT not supported on "+runtime.GOOS)
}
