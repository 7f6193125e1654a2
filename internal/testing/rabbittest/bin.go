package rabbittest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
)

// BinEnv names an environment variable that overrides where the broker's
// scripts (rabbitmq-server, rabbitmqctl) are looked up.
const BinEnv = "RABBITTEST_BIN"

// ErrNoBroker is wrapped by the error New returns when RabbitMQ is not
// installed. Outside CI a test that needs a broker skips on it, saying
// so; in CI (CI=true) it fails.
var ErrNoBroker = errors.New("rabbittest: no RabbitMQ server (rabbitmq-server, rabbitmqctl, epmd) found in /usr/lib/rabbitmq" +
	" — install it with `apt-get install rabbitmq-server` (Debian/Ubuntu), or set " + BinEnv + " to its sbin directory")

// bins are the programs a broker needs.
type bins struct {
	server, ctl, epmd string
}

// findBins returns the broker's scripts: those of the newest
// /usr/lib/rabbitmq/lib/rabbitmq_server-*/sbin (not /usr/sbin's wrappers,
// which switch to the rabbitmq user and drop the environment), and epmd.
func findBins() (bins, error) {
	dirs, _ := filepath.Glob("/usr/lib/rabbitmq/lib/rabbitmq_server-*/sbin")
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	if d := os.Getenv(BinEnv); d != "" {
		dirs = []string{d}
	}
	epmd, err := exec.LookPath("epmd")
	if err != nil {
		found, _ := filepath.Glob("/usr/lib/erlang/erts-*/bin/epmd")
		if len(found) == 0 {
			return bins{}, fmt.Errorf("%w (no epmd)", ErrNoBroker)
		}
		epmd = found[len(found)-1]
	}
	for _, d := range dirs {
		b := bins{server: filepath.Join(d, "rabbitmq-server"), ctl: filepath.Join(d, "rabbitmqctl"), epmd: epmd}
		if isFile(b.server) && isFile(b.ctl) {
			return b, nil
		}
	}
	return bins{}, ErrNoBroker
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// skipOrFail ends t for err: a skip when err is ErrNoBroker outside CI,
// a failure otherwise.
func skipOrFail(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, ErrNoBroker) && os.Getenv("CI") != "true" {
		t.Skip(err)
	}
	t.Fatal(err)
}
