package rabbittest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"
)

// proc is a process of the node that this package started and reaps.
type proc struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed once Wait returned; err is its result
	err    error
}

// startProc starts name in its own process group, its output appended to
// dir/<what>.out.
func startProc(dir, what string, env []string, name string, args ...string) (*proc, error) {
	out, err := os.OpenFile(filepath.Join(dir, what+".out"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("rabbittest: %w", err)
	}
	defer out.Close()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("rabbittest: start %s: %w", what, err)
	}
	p := &proc{cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

// signal sends sig to the process's whole group.
func (p *proc) signal(sig syscall.Signal) {
	_ = syscall.Kill(-p.pid(), sig)
}

// wait waits up to d for the process to exit and reports whether it did.
func (p *proc) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// stop kills the process group and reaps the process.
func (p *proc) stop() error {
	p.signal(syscall.SIGKILL)
	if !p.wait(30 * time.Second) {
		return fmt.Errorf("rabbittest: %s (pid %d) did not exit after SIGKILL", p.cmd.Path, p.pid())
	}
	return nil
}

// freePorts returns n distinct ports of 127.0.0.1 that are free now, below
// the kernel's ephemeral range (32768 and up on Linux): there no outgoing
// connection can take one while the broker is down.
func freePorts(n int) ([]int, error) {
	var ports []int
	for tries := 0; len(ports) < n && tries < 1000; tries++ {
		p := 20000 + rand.IntN(12000)
		if slices.Contains(ports, p) {
			continue
		}
		ln, err := net.Listen("tcp", net.JoinHostPort(Host, strconv.Itoa(p)))
		if err != nil {
			continue
		}
		ln.Close()
		ports = append(ports, p)
	}
	if len(ports) < n {
		return nil, errors.New("rabbittest: no free port found below 32000")
	}
	return ports, nil
}
