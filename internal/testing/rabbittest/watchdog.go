package rabbittest

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// watchdog is a small shell process that kills the broker and its epmd
// and removes the directory when the test binary goes away, however it
// goes away: a failed test, a panic, a -timeout, SIGKILL. It waits for EOF
// on a pipe whose only writer is the test binary; the kernel closes that
// end when the binary exits. The broker's process group is read from a
// file at that moment: a restarted broker has a new one.
type watchdog struct {
	cmd *exec.Cmd
	w   *os.File
}

const watchdogScript = `cat >/dev/null
kill -9 "$(cat "$1/broker.pid" 2>/dev/null)" 2>/dev/null
kill -9 -- "-$(cat "$1/broker.pgid" 2>/dev/null)" 2>/dev/null
kill -9 "$2" 2>/dev/null
rm -rf "$1"`

func startWatchdog(dir string, epmdPid int) (*watchdog, error) {
	r, w, err := os.Pipe() // close-on-exec: no other child inherits w
	if err != nil {
		return nil, fmt.Errorf("rabbittest: watchdog pipe: %w", err)
	}
	cmd := exec.Command("/bin/sh", "-c", watchdogScript, "rabbittest-watchdog", dir, strconv.Itoa(epmdPid))
	cmd.Stdin = r
	cmd.Dir = os.TempDir()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a Ctrl-C to the test's group does not reach it
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("rabbittest: start watchdog: %w", err)
	}
	return &watchdog{cmd: cmd, w: w}, nil
}

// release lets the watchdog run (kill what still runs, remove the
// directory) and waits for it to exit.
func (d *watchdog) release() error {
	d.w.Close()
	if err := d.cmd.Wait(); err != nil {
		return fmt.Errorf("rabbittest: watchdog: %w", err)
	}
	return nil
}
