//go:build linux

package dial

import (
	"fmt"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const defaultUserTimeout = DefaultUserTimeout

func checkUserTimeout(string, time.Duration) error { return nil }

// setUserTimeout sets TCP_USER_TIMEOUT on the socket before it connects.
func setUserTimeout(c syscall.RawConn, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	ms := int((d + time.Millisecond - 1) / time.Millisecond) // 0 would be the kernel's default
	var serr error
	if err := c.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, ms)
	}); err != nil {
		return err
	}
	if serr != nil {
		return fmt.Errorf("set TCP_USER_TIMEOUT: %w", serr)
	}
	return nil
}
