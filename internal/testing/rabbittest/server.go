package rabbittest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"
)

// BootTimeout bounds a broker's boot: about 5s on an idle machine, 15s on
// a busy one.
const BootTimeout = 90 * time.Second

// boot starts the broker process and waits until it accepts AMQP logins.
func (b *Broker) boot() error {
	_ = os.Remove(b.pidFile())
	srv, err := startProc(b.dir, "broker", b.env(), b.bins.server)
	if err != nil {
		return err
	}
	b.srv = srv
	if err := os.WriteFile(b.dir+"/broker.pgid", []byte(strconv.Itoa(srv.pid())), 0o600); err != nil {
		return fmt.Errorf("rabbittest: %w", err)
	}
	return b.waitUp()
}

// waitUp polls with AMQP logins until one works, the broker exits, or
// BootTimeout passes. Nothing notifies this process when a broker is up.
func (b *Broker) waitUp() error {
	deadline := time.Now().Add(BootTimeout)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		c, err := amqp091.DialConfig(b.URL(), amqp091.Config{Dial: amqp091.DefaultDial(2 * time.Second)})
		if err == nil {
			return c.Close()
		}
		select {
		case <-b.srv.exited:
			return fmt.Errorf("rabbittest: the broker exited while booting (%v); its log:\n%s", b.srv.err, tail(b.Log()+b.output(), 30))
		case <-tick.C:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("rabbittest: the broker did not accept a login within %v (last: %v); its log:\n%s", BootTimeout, err, tail(b.Log(), 30))
		}
	}
}

// output is what the broker's scripts printed.
func (b *Broker) output() string {
	out, _ := os.ReadFile(b.dir + "/broker.out")
	return string(out)
}

// beamPid returns the Erlang VM's process id, 0 when unknown.
func (b *Broker) beamPid() int {
	text, err := os.ReadFile(b.pidFile())
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(text)))
	return pid
}

// kill stops the broker at once: SIGKILL to the VM, which the script that
// started it reaps before it exits, then to the script's whole group.
func (b *Broker) kill() error {
	if b.srv == nil {
		return nil
	}
	srv := b.srv
	b.srv = nil
	if pid := b.beamPid(); pid > 0 {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		if srv.wait(10 * time.Second) {
			return nil
		}
	}
	return srv.stop()
}

// Kill kills the broker with SIGKILL, as a crash does: clients see their
// connections reset, nothing is said to them. Start boots it again. As in
// a crash, what the broker's metadata store (mnesia) had not written yet —
// a durable queue declared in the last seconds, and its messages — is
// lost; Sync first to keep it.
//
// Confirmed persistent messages of a queue that was already on disk
// survive.
func (b *Broker) Kill(t testing.TB) {
	t.Helper()
	if err := b.kill(); err != nil {
		t.Fatal(err)
	}
}

// Sync makes the broker write its metadata store's log (mnesia keeps the
// last writes in a cache for a few seconds): queues declared before it
// survive a Kill.
func (b *Broker) Sync(t testing.TB) {
	t.Helper()
	if out := b.Ctl(t, "eval", "disk_log:sync(latest_log)."); strings.TrimSpace(out) != "ok" {
		t.Fatalf("rabbittest: sync the metadata store: %s", out)
	}
}

// Stop shuts the broker down cleanly (SIGTERM): clients are told
// CONNECTION_FORCED (320) before their connections close. Start boots it
// again.
func (b *Broker) Stop(t testing.TB) {
	t.Helper()
	if b.srv == nil {
		return
	}
	srv := b.srv
	b.srv = nil
	_ = syscall.Kill(srv.pid(), syscall.SIGTERM) // the script stops the VM and waits for it
	if !srv.wait(BootTimeout) {
		_ = srv.stop()
		t.Fatalf("rabbittest: the broker did not stop within %v of SIGTERM", BootTimeout)
	}
}

// Start boots a stopped or killed broker again, on the same ports and with
// the same data (durable queues and their persistent messages survive),
// and returns once it accepts logins.
func (b *Broker) Start(t testing.TB) {
	t.Helper()
	if b.srv != nil {
		return
	}
	if err := b.boot(); err != nil {
		t.Fatal(err)
	}
}

// Running reports whether the broker process runs (Start was the last of
// Start, Stop and Kill).
func (b *Broker) Running() bool { return b.srv != nil }

// Freeze stops the broker's VM (SIGSTOP) without closing anything: its
// sockets stay open and the kernel still accepts connections and data,
// but nothing answers — a broker that hangs. It returns once every thread
// of the VM has stopped. Thaw resumes it.
func (b *Broker) Freeze(t testing.TB) {
	t.Helper()
	b.signalVM(t, syscall.SIGSTOP)
	if err := waitStopped(b.beamPid()); err != nil {
		t.Fatal(err)
	}
}

// waitStopped polls /proc until every thread of pid is stopped: a signal
// reaches a busy multi-threaded process's threads one by one, and nothing
// says when the last one stopped.
func waitStopped(pid int) error {
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
		stopped := len(tasks) > 0
		for _, task := range tasks {
			stat, err := os.ReadFile(task)
			// The state follows the command name, which is in parentheses.
			if i := strings.LastIndexByte(string(stat), ')'); err != nil || i < 0 || i+2 >= len(stat) || stat[i+2] != 'T' {
				stopped = false
			}
		}
		if stopped {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("rabbittest: the broker's threads did not all stop within 10s of SIGSTOP")
		}
		<-tick.C
	}
}

// Thaw resumes a frozen broker (SIGCONT).
func (b *Broker) Thaw(t testing.TB) { b.signalVM(t, syscall.SIGCONT) }

func (b *Broker) signalVM(t testing.TB, sig syscall.Signal) {
	t.Helper()
	pid := b.beamPid()
	if b.srv == nil || pid == 0 {
		t.Fatalf("rabbittest: the broker does not run")
	}
	if err := syscall.Kill(pid, sig); err != nil {
		t.Fatalf("rabbittest: %v to the broker: %v", sig, err)
	}
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

var errNotRunning = errors.New("rabbittest: the broker does not run")
