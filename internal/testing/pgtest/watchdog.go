package pgtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// watchdog is a small shell process that stops the server and removes its
// directory when the test binary goes away, however it goes away: a failed
// test, a panic, a -timeout, SIGKILL. It waits for EOF on a pipe whose only
// writer is the test binary; the kernel closes that end when the binary
// exits. pg_ctl daemonizes the postmaster, so without it a crashed test
// binary would leave a server running.
type watchdog struct {
	cmd *exec.Cmd
	w   *os.File
}

const watchdogScript = `cat >/dev/null; "$0" stop -D "$1" -m immediate -w >/dev/null 2>&1; rm -rf "$2"`

func startWatchdog(o owner, bin, dir string) (*watchdog, error) {
	r, w, err := os.Pipe() // close-on-exec: no other child inherits w
	if err != nil {
		return nil, fmt.Errorf("pgtest: watchdog pipe: %w", err)
	}
	cmd := o.command(dir, "/bin/sh", "-c", watchdogScript, filepath.Join(bin, "pg_ctl"), filepath.Join(dir, "data"), dir)
	cmd.Stdin = r
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("pgtest: start watchdog: %w", err)
	}
	return &watchdog{cmd: cmd, w: w}, nil
}

// release lets the watchdog run (stop the server if it still runs, remove
// the directory) and waits for it to exit.
func (d *watchdog) release() error {
	d.w.Close()
	return d.cmd.Wait()
}
