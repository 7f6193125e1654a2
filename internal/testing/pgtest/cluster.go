// Package pgtest starts throwaway PostgreSQL clusters from the installed
// server binaries for tests that need a real database: a copy of what
// initdb made once per process in a temporary directory (so every cluster
// of a process has the same superuser password), a free port on
// 127.0.0.1, its own socket directory, fsync off, SCRAM password
// authentication over TCP, TLS off unless Options.TLS. A test can stop,
// start and restart the server (fast or immediate) to inject real faults.
// StartPair starts a primary and its streaming-replication standby, for
// failovers: Promote, Follow (pg_rewind the old primary to follow the
// new one) and Fence (read-only without ending sessions).
//
// Every server is stopped and its directory removed when the test ends,
// also when it fails; a watchdog process does it even if the test binary
// dies. When no binaries are installed, New and Start fail with
// ErrNoBinaries, which says how to install them.
package pgtest

import (
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	// HBA are pg_hba.conf lines put before the default ones (the first
	// line that matches a connection decides), e.g.
	// "host rejected all 127.0.0.1/32 reject": a login to database
	// rejected is refused with SQLSTATE 28000. They survive restarts.
	HBA []string
	// TLS turns on ssl with a self-signed certificate for 127.0.0.1 made
	// when the cluster is created (CertPool holds it). Logins over TCP are
	// then accepted with and without TLS, as pg_hba.conf's "host" lines
	// say; a client's sslmode decides.
	TLS bool
	// Port is the TCP port to listen on; 0 picks a free one. A test that
	// restarts the server many times while clients keep connecting should
	// choose a free port below the kernel's ephemeral range (32768 and up
	// on Linux): an outgoing connection may take a port in that range
	// while the server is down, and the restart then fails with "address
	// already in use".
	Port int
}

// Cluster is one running (or stopped) throwaway PostgreSQL server. Its
// methods are meant for one test goroutine at a time.
type Cluster struct {
	bin, dir string
	port     int
	password string
	cert     *x509.Certificate // nil without TLS
	settings map[string]string // what pgtest.conf holds but the port and socket directory
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
	c, err := newCluster()
	if err != nil {
		return nil, err
	}
	if err := c.create(o); err != nil {
		return nil, errors.Join(err, c.Close())
	}
	return c, nil
}

// newCluster makes the directory of a cluster, owned by the server's
// user, with its watchdog; the data directory is still to be made.
func newCluster() (*Cluster, error) {
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
	c := &Cluster{bin: bin, dir: dir, owner: own}
	if err := own.chown(dir); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgtest: give %s to the server user: %w", dir, err)
	}
	if c.dog, err = startWatchdog(own, bin, dir); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return c, nil
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

func randomPassword() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
