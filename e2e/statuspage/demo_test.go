package statuspage

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// repoRoot is the library's checkout: this module's go.mod replaces the
// library with .., and this package is one level below it.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	require.Contains(t, string(mod), "module github.com/redial-go/redial\n", "%s is the library's checkout", root)
	return root
}

// buildDemo builds examples/demo into the test's temporary directory.
func buildDemo(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "demo")
	cmd := exec.Command("go", "build", "-o", bin, "./examples/demo")
	cmd.Dir = repoRoot(t)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build ./examples/demo:\n%s", out)
	return bin
}

// demoOutput is the demo's stdout and stderr; it notices the line that
// gives the status page's address.
type demoOutput struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	status chan string // the status page's URL, once
	found  bool
}

var statusLine = regexp.MustCompile(`(?m)^status:\s+(http://\S+/status)\s`)

func (o *demoOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf.Write(p)
	if !o.found {
		if m := statusLine.FindSubmatch(o.buf.Bytes()); m != nil {
			o.found = true
			o.status <- string(m[1])
		}
	}
	return len(p), nil
}

func (o *demoOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// startDemo runs the demo binary against feed and returns the status
// page's URL from the demo's output. When the test ends the demo gets an
// interrupt, as from Ctrl-C, and must exit with its summary (killed after
// 10s).
func startDemo(t *testing.T, bin, feed string) string {
	t.Helper()
	out := &demoOutput{status: make(chan string, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "-url", feed, "-duration", "2m")
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cancel()
		err := <-exited
		t.Logf("demo output:\n%s", out)
		if ps := cmd.ProcessState; ps != nil {
			assert.Zero(t, ps.ExitCode(), "the demo exits 0 on an interrupt: %v", err)
		}
		assert.Contains(t, out.String(), "summary:", "the demo stops cleanly and prints its summary")
		assert.Contains(t, out.String(), " 0 lost,", "the demo resumes from the last tick on every connect")
	})
	select {
	case u := <-out.status:
		return u
	case err := <-exited:
		exited <- err // for the cleanup
		t.Fatalf("the demo exited before printing its status line (%v):\n%s", err, out)
	case <-time.After(30 * time.Second):
		t.Fatalf("no status line from the demo within 30s:\n%s", out)
	}
	return ""
}
