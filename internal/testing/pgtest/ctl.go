package pgtest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Mode is a pg_ctl shutdown mode.
type Mode string

const (
	// Smart waits for every client to disconnect.
	Smart Mode = "smart"
	// Fast disconnects clients (they see SQLSTATE 57P01) and shuts down
	// cleanly.
	Fast Mode = "fast"
	// Immediate kills the server without a clean shutdown; the next start
	// runs crash recovery.
	Immediate Mode = "immediate"
)

// Stop stops the server (pg_ctl stop -w -m mode).
func (c *Cluster) Stop(t testing.TB, mode Mode) {
	t.Helper()
	if err := c.ctl("stop", "-m", string(mode)); err != nil {
		t.Fatal(err)
	}
	c.running = false
}

// Start starts the stopped server again on the same port (pg_ctl start -w).
func (c *Cluster) Start(t testing.TB) {
	t.Helper()
	if err := c.start(); err != nil {
		t.Fatal(err)
	}
}

// Restart restarts the server (pg_ctl restart -w -m mode): clients are
// disconnected and the server is back before Restart returns.
func (c *Cluster) Restart(t testing.TB, mode Mode) {
	t.Helper()
	if err := c.ctl("restart", "-m", string(mode), "-l", c.logFile()); err != nil {
		t.Fatal(err)
	}
	c.running = true
}

// KillBackend kills one server process with SIGKILL. Killing a backend
// makes the postmaster end every other backend and run crash recovery,
// during which new connections are refused with SQLSTATE 57P03.
func (c *Cluster) KillBackend(t testing.TB, pid uint32) {
	t.Helper()
	if err := syscall.Kill(int(pid), syscall.SIGKILL); err != nil {
		t.Fatalf("pgtest: kill -9 %d: %v", pid, err)
	}
}

// Log returns the server's log so far, for failure messages.
func (c *Cluster) Log() string {
	b, _ := os.ReadFile(c.logFile())
	return string(b)
}

func (c *Cluster) start() error {
	if err := c.ctl("start", "-l", c.logFile()); err != nil {
		return err
	}
	c.running = true
	return nil
}

// ctl runs pg_ctl -w -D data args... as the server's owner.
func (c *Cluster) ctl(args ...string) error {
	return c.run("pg_ctl", append([]string{"-w", "-t", "30", "-D", c.dataDir()}, args...)...)
}

// run runs one server binary as the server's owner.
func (c *Cluster) run(name string, args ...string) error {
	return c.exec(filepath.Join(c.bin, name), args...)
}

// exec runs name (a path, or a command on PATH) as the server's owner.
func (c *Cluster) exec(name string, args ...string) error { return c.execEnv(nil, name, args...) }

// execEnv is exec with env added to the environment: a password goes
// there, never into args, which an error shows.
func (c *Cluster) execEnv(env []string, name string, args ...string) error {
	cmd := c.owner.command(c.dir, name, args...)
	cmd.Env = append(cmd.Env, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("pgtest: %s %s: %w\n%s\nserver log:\n%s", name, strings.Join(args, " "), err, out.String(), tail(c.Log(), 20))
	}
	return nil
}

func (c *Cluster) logFile() string { return filepath.Join(c.dir, "server.log") }

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
