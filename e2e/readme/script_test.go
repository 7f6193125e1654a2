package readme

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeSystem is a PATH whose id, sudo and apt-get are stubs that log what
// test.sh asks of them, with the paths test.sh checks pointing at files
// that exist or not.
type fakeSystem struct {
	dir, log string
	env      []string
}

func newFakeSystem(t *testing.T, uid string, present ...string) *fakeSystem {
	t.Helper()
	f := &fakeSystem{dir: t.TempDir()}
	f.log = filepath.Join(f.dir, "log")
	bin := filepath.Join(f.dir, "bin")
	require.NoError(t, os.Mkdir(bin, 0o755))
	policy := filepath.Join(f.dir, "policy-rc.d")
	for name, script := range map[string]string{
		"id":      `[ "$1" = -u ] && echo ` + uid,
		"sudo":    `echo "sudo $*" >>"$LOG"; exec "$@"`,
		"apt-get": `echo "apt-get $* DEBIAN_FRONTEND=$DEBIAN_FRONTEND policy-rc.d:$(test -x "$TEST_SH_POLICY" && cat "$TEST_SH_POLICY" | tail -1)" >>"$LOG"`,
	} {
		require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+script+"\n"), 0o755))
	}
	paths := map[string]string{
		"postgresql":      filepath.Join(f.dir, "postgresql", "15", "bin", "initdb"),
		"chromium":        filepath.Join(f.dir, "chromium"),
		"rabbitmq-server": filepath.Join(f.dir, "rabbitmq-server"),
	}
	for _, p := range present {
		require.NoError(t, os.MkdirAll(filepath.Dir(paths[p]), 0o755))
		require.NoError(t, os.WriteFile(paths[p], nil, 0o755))
	}
	f.env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "LOG="+f.log,
		"TEST_SH_PG="+filepath.Join(f.dir, "postgresql", "*", "bin", "initdb"),
		"TEST_SH_CHROMIUM="+paths["chromium"], "TEST_SH_RABBITMQ="+paths["rabbitmq-server"],
		"TEST_SH_POLICY="+policy, "TEST_SH_LOCK_PAUSE=0")
	return f
}

// aptGet replaces the apt-get stub with script, which logs its arguments
// and finds its call's number (1, 2, ...) in $n.
func (f *fakeSystem) aptGet(t *testing.T, script string) {
	t.Helper()
	count := filepath.Join(f.dir, "count")
	stub := `echo "apt-get $*" >>"$LOG"; n=$(($(cat ` + count + ` 2>/dev/null || echo 0) + 1)); echo $n >` + count + "\n" + script
	require.NoError(t, os.WriteFile(filepath.Join(f.dir, "bin", "apt-get"), []byte("#!/bin/sh\n"+stub+"\n"), 0o755))
}

// run runs test.sh -install and returns its output, what the stubs logged
// and its error.
func (f *fakeSystem) run(t *testing.T) (string, []string, error) {
	t.Helper()
	cmd := exec.Command(filepath.Join(root(t), "test.sh"), "-install")
	cmd.Env = f.env
	out, err := cmd.CombinedOutput()
	data, _ := os.ReadFile(f.log)
	return string(out), strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"), err
}

// install runs test.sh -install and returns what the stubs logged.
func (f *fakeSystem) install(t *testing.T) []string {
	t.Helper()
	cmd := exec.Command(filepath.Join(root(t), "test.sh"), "-install")
	cmd.Env = f.env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "test.sh -install:\n%s", out)
	_, err = os.Stat(filepath.Join(f.dir, "policy-rc.d"))
	assert.ErrorIs(t, err, os.ErrNotExist, "the policy-rc.d it wrote is gone afterwards")
	data, err := os.ReadFile(f.log)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// TestScriptInstallsWhatIsMissing: test.sh installs with apt-get only the
// packages whose binaries are missing, as root directly and otherwise
// through sudo, non-interactively, with a policy-rc.d that keeps their
// services from starting; with nothing missing it asks for nothing.
func TestScriptInstallsWhatIsMissing(t *testing.T) {
	const quiet = " DEBIAN_FRONTEND=noninteractive policy-rc.d:exit 101"
	assert.Equal(t, []string{
		"apt-get " + lock + " update -qq" + quiet,
		"apt-get " + lock + " install -y -qq --no-install-recommends postgresql chromium rabbitmq-server" + quiet,
	}, newFakeSystem(t, "0").install(t), "as root, everything missing")

	assert.Equal(t, []string{
		"sudo tee " + "POLICY",
		"sudo chmod +x POLICY",
		"sudo env DEBIAN_FRONTEND=noninteractive LC_ALL=C apt-get " + lock + " update -qq",
		"apt-get " + lock + " update -qq" + quiet,
		"sudo env DEBIAN_FRONTEND=noninteractive LC_ALL=C apt-get " + lock + " install -y -qq --no-install-recommends rabbitmq-server",
		"apt-get " + lock + " install -y -qq --no-install-recommends rabbitmq-server" + quiet,
		"sudo rm -f POLICY",
	}, policyAs(newFakeSystem(t, "1000", "postgresql", "chromium"), t), "as a user, RabbitMQ missing")

	assert.Empty(t, newFakeSystem(t, "1000", "postgresql", "chromium", "rabbitmq-server").install(t), "nothing missing")
}

// lock is the option that makes apt-get wait for dpkg's lock.
const lock = "-o DPkg::Lock::Timeout=600"

// TestScriptWaitsForTheAptLock: while another apt-get holds a lock (apt
// 2.6's update does not wait for the lists lock: it exits 100 at once, as
// unattended upgrades made it on a fresh VM), test.sh tries again; any
// other failure of apt-get fails it at once, with apt-get's message.
func TestScriptWaitsForTheAptLock(t *testing.T) {
	f := newFakeSystem(t, "0", "postgresql", "chromium")
	f.aptGet(t, `[ $n -gt 2 ] || { echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 7 (apt-get)" >&2; exit 100; }`)
	out, calls, err := f.run(t)
	require.NoError(t, err, "test.sh -install:\n%s", out)
	assert.Equal(t, []string{
		"apt-get " + lock + " update -qq", "apt-get " + lock + " update -qq", "apt-get " + lock + " update -qq",
		"apt-get " + lock + " install -y -qq --no-install-recommends rabbitmq-server",
	}, calls, "update tried until the lock was free")
	assert.Contains(t, out, "holds a lock; waiting", "it says why it waits")

	f = newFakeSystem(t, "0", "postgresql", "chromium")
	f.aptGet(t, `echo "E: Unable to locate package rabbitmq-server" >&2; exit 100`)
	out, calls, err = f.run(t)
	require.Error(t, err, "another failure of apt-get fails test.sh")
	assert.Equal(t, []string{"apt-get " + lock + " update -qq"}, calls, "and is not tried again")
	assert.Contains(t, out, "Unable to locate package", "apt-get's message is shown")
}

// policyAs runs install and writes the policy-rc.d path as POLICY.
func policyAs(f *fakeSystem, t *testing.T) []string {
	lines := f.install(t)
	for i := range lines {
		lines[i] = strings.ReplaceAll(lines[i], filepath.Join(f.dir, "policy-rc.d"), "POLICY")
	}
	return lines
}
