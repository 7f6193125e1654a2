//go:build !linux

package dial

import (
	"runtime"
	"syscall"
	"time"

	"github.com/redial-go/redial/internal/opterr"
)

// Only Linux has TCP_USER_TIMEOUT: elsewhere the default is none, and
// asking for one is an error rather than a silent no-op.
const defaultUserTimeout = 0

func checkUserTimeout(pkg string, d time.Duration) error {
	if d != 0 {
		return opterr.New(pkg, "UserTimeout", d, "TCP_USER_TIMEOUT not supported on %s", runtime.GOOS)
	}
	return nil
}

func setUserTimeout(syscall.RawConn, time.Duration) error { return nil }
