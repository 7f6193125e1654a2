// Package pgtest starts throwaway PostgreSQL clusters from the installed
// server binaries for tests that need a real database: initdb into a
// temporary directory, a free port on 127.0.0.1, its own socket directory,
// fsync off, SCRAM password authentication over TCP. A test can stop,
// start and restart the server (fast or immediate) to inject real faults.
//
// Every server is stopped and its directory removed when the test ends,
// also when it fails; a watchdog process does it even if the test binary
// dies. When no binaries are installed, New and Start fail with
// ErrNoBinaries, which says how to install them.
package pgtest

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// User is the superuser every cluster is created with; its password is
// Cluster.Password.
const User = "postgres"

// Options configures a cluster. The zero value is a default server.
type Options struct {
	// Settings are extra postgresql.conf settings, e.g.
	// {"max_connections": "5"}. They survive restarts.
	Settings map[string]string
}

// Cluster is one running (or stopped) throwaway PostgreSQL server. Its
// methods are meant for one test goroutine at a time.
type Cluster struct {
	bin, dir string
	port     int
	password string
	owner    owner
	dog      *watchdog
	running  bool
}

// Start starts a cluster for t and stops it when t ends (immediate mode),
// also when t fails. It fails t when no cluster can be started.
func Start(t testing.TB, o Options) *Cluster {
	t.Helper()
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return c
}

// New starts a cluster that the caller must Close: the form for TestMain,
// where one cluster is shared by a package's tests.
func New(o Options) (*Cluster, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	own, err := serverOwner()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	c := &Cluster{bin: bin, dir: dir, owner: own, password: randomPassword()}
	if err := own.chown(dir); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgtest: give %s to the server user: %w", dir, err)
	}
	if c.dog, err = startWatchdog(own, bin, dir); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := c.create(o); err != nil {
		return nil, errors.Join(err, c.Close())
	}
	return c, nil
}

// create runs initdb, writes the settings and starts the server on a free
// port, trying another port when the chosen one was taken meanwhile.
func (c *Cluster) create(o Options) error {
	pwfile := filepath.Join(c.dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(c.password+"\n"), 0o600); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	if err := c.owner.chown(pwfile); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	if err := c.run("initdb", "-D", c.dataDir(), "-U", User, "--pwfile="+pwfile, "--auth-local=peer",
		"--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"); err != nil {
		return err
	}
	os.Remove(pwfile)
	sock := filepath.Join(c.dir, "sock")
	if err := os.Mkdir(sock, 0o700); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	if err := c.owner.chown(sock); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	var err error
	for range 5 {
		if c.port, err = freePort(); err != nil {
			return err
		}
		settings := map[string]string{
			"listen_addresses": "'127.0.0.1'", "port": fmt.Sprint(c.port), "unix_socket_directories": "'" + sock + "'",
			"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off",
		}
		maps.Copy(settings, o.Settings)
		if err = c.writeConf(settings); err != nil {
			return err
		}
		if err = c.start(); err == nil || !strings.Contains(c.Log(), "already in use") {
			return err
		}
	}
	return err
}

// writeConf writes the settings to an included file, replacing it.
func (c *Cluster) writeConf(settings map[string]string) error {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		fmt.Fprintf(&b, "%s = %s\n", k, settings[k])
	}
	conf := filepath.Join(c.dataDir(), "pgtest.conf")
	if err := os.WriteFile(conf, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	if err := c.owner.chown(conf); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	main := filepath.Join(c.dataDir(), "postgresql.conf")
	text, err := os.ReadFile(main)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	if include := "include = 'pgtest.conf'\n"; !strings.Contains(string(text), include) {
		if err := os.WriteFile(main, append(text, include...), 0o600); err != nil {
			return fmt.Errorf("pgtest: %w", err)
		}
	}
	return nil
}

// Close stops the server at once (immediate mode) if it runs and removes
// its directory. It is safe to call more than once.
func (c *Cluster) Close() error {
	if c.dog == nil {
		return nil
	}
	var err error
	if c.running {
		err = c.ctl("stop", "-m", string(Immediate))
		c.running = false
	}
	err = errors.Join(err, c.dog.release())
	c.dog = nil
	return errors.Join(err, os.RemoveAll(c.dir))
}

func (c *Cluster) dataDir() string { return filepath.Join(c.dir, "data") }

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func randomPassword() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
