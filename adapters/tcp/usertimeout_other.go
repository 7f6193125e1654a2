//go:build !linux

package tcp

import (
	"fmt"
	"runtime"
	"syscall"
	"time"
)

// Only Linux has TCP_USER_TIMEOUT: elsewhere the default is none, and
// asking for one is an error rather than a silent no-op.
const defaultUserTimeout = 0

func checkUserTimeout(d time.Duration) error {
	if d != 0 {
		return fmt.Errorf("tcp: UserTimeout: TCP_USER_TIMEOUT is not supported on %s", runtime.GOOS)
	}
	return nil
}

func setUserTimeout(syscall.RawConn, time.Duration) error { return nil }
