package pgtest_test

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/internal/testing/pgtest"
)

// TestServerDiesWithTestBinary runs a copy of this test binary that starts
// a cluster and is then killed with SIGKILL, so no Cleanup or defer runs:
// the watchdogs must still stop the server and remove its directory and
// the template's.
func TestServerDiesWithTestBinary(t *testing.T) {
	if os.Getenv("PGTEST_ORPHAN_CHILD") == "1" {
		c, err := pgtest.New(pgtest.Options{})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(c.DataDirForTest(), c.Port(), c.TemplateDirForTest())
		select {} // until killed
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestServerDiesWithTestBinary$")
	cmd.Env = append(os.Environ(), "PGTEST_ORPHAN_CHILD=1")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var dir, template string
	var port int
	_, err = fmt.Fscan(bufio.NewReader(out), &dir, &port, &template)
	require.NoError(t, err, "child did not start a cluster")
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err, "child's server is not listening")
	c.Close()

	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()

	// Nothing notifies this process when a grandchild exits: poll, with a deadline.
	deadline := time.Now().Add(15 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		_, statErr := os.Stat(dir)
		_, templateErr := os.Stat(template)
		c, dialErr := net.Dial("tcp", addr)
		if dialErr == nil {
			c.Close()
		}
		if os.IsNotExist(statErr) && os.IsNotExist(templateErr) && dialErr != nil {
			return
		}
		if time.Now().After(deadline) {
			assert.Fail(t, "server outlived its test binary", "dir exists: %v, template exists: %v, server listening: %v",
				statErr == nil, templateErr == nil, dialErr == nil)
			return
		}
		<-tick.C
	}
}
