package pgtest

import (
	"context"
	"errors"
	"maps"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// replicaSettings are what a primary needs so that its standby can be
// promoted and the old primary rewound to follow it: pg_rewind wants
// full_page_writes and wal_log_hints, and the new primary keeps some WAL
// for the old one to catch up from.
var replicaSettings = map[string]string{"full_page_writes": "on", "wal_log_hints": "on", "wal_keep_size": "'64MB'",
	"wal_level": "replica", "hot_standby": "on"}

// StartPair starts a primary and a streaming-replication standby of it
// (pg_basebackup -R) for t, both stopped when t ends. o is the primary's;
// the standby copies its settings, pg_hba.conf and certificate, on a port
// of its own. The standby is streaming when StartPair returns.
func StartPair(t testing.TB, o Options) (primary, standby *Cluster) {
	t.Helper()
	o.Settings = maps.Clone(o.Settings)
	if o.Settings == nil {
		o.Settings = map[string]string{}
	}
	for k, v := range replicaSettings {
		if _, set := o.Settings[k]; !set {
			o.Settings[k] = v
		}
	}
	primary = Start(t, o)
	standby, err := primary.newStandby()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := standby.Close(); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	standby.WaitStreaming(t, primary)
	return primary, standby
}

// newStandby makes a standby of c with pg_basebackup -R and starts it.
func (c *Cluster) newStandby() (*Cluster, error) {
	s, err := newCluster()
	if err != nil {
		return nil, err
	}
	s.password, s.cert, s.settings = c.password, c.cert, maps.Clone(c.settings)
	err = s.execEnv(c.passwordEnv(), filepath.Join(s.bin, "pg_basebackup"), "-h", Host, "-p", strconv.Itoa(c.port), "-U", User,
		"-D", s.dataDir(), "-R", "-X", "stream", "-c", "fast", "--no-sync")
	if err == nil {
		err = s.listen(0)
	}
	if err != nil {
		return nil, errors.Join(err, s.Close())
	}
	return s, nil
}

func (c *Cluster) passwordEnv() []string { return []string{"PGPASSWORD=" + c.password} }

// Promote promotes a standby (pg_ctl promote -w): it takes writes when
// Promote returns.
func (c *Cluster) Promote(t testing.TB) {
	t.Helper()
	if err := c.ctl("promote"); err != nil {
		t.Fatal(err)
	}
}

// Follow makes c, a stopped or running former primary, a standby of
// primary: stopped (fast) if it runs, rewound with pg_rewind -R to
// primary's timeline, and started on its own port. It returns once c
// streams from primary.
func (c *Cluster) Follow(t testing.TB, primary *Cluster) {
	t.Helper()
	if c.running {
		c.Stop(t, Fast)
	}
	primary.exec1(t, "CHECKPOINT") // pg_rewind reads primary's timeline from its control file
	err := c.execEnv(primary.passwordEnv(), filepath.Join(c.bin, "pg_rewind"), "-D", c.dataDir(), "-R", "--no-sync",
		"--source-server=host="+Host+" port="+strconv.Itoa(primary.port)+" user="+User+" dbname=postgres")
	if err == nil {
		err = c.writeConf() // pg_rewind copied primary's, with its port
	}
	if err == nil {
		err = c.start()
	}
	if err != nil {
		t.Fatal(err)
	}
	c.WaitStreaming(t, primary)
}

// Fence makes c refuse writes without ending its sessions, as fencing
// tools do with a demoted primary: ALTER SYSTEM SET
// default_transaction_read_only = on and a reload. It returns once a new
// session sees it, when the postmaster has signalled every session: each
// takes it before its next statement, a write then fails with SQLSTATE
// 25006, and its answer reports default_transaction_read_only on.
func (c *Cluster) Fence(t testing.TB) {
	t.Helper()
	c.exec1(t, "ALTER SYSTEM SET default_transaction_read_only = on", "SELECT pg_reload_conf()")
	c.waitSetting(t, "default_transaction_read_only", "on")
}

// Unfence undoes Fence.
func (c *Cluster) Unfence(t testing.TB) {
	t.Helper()
	c.exec1(t, "SET default_transaction_read_only = off", "ALTER SYSTEM RESET default_transaction_read_only", "SELECT pg_reload_conf()")
	c.waitSetting(t, "default_transaction_read_only", "off")
}

// waitSetting waits, up to 10s, until a new session sees name = value.
func (c *Cluster) waitSetting(t testing.TB, name, value string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		conn := c.connect(t)
		var got string
		err := conn.QueryRow(t.Context(), "SELECT current_setting($1)", name).Scan(&got)
		conn.Close(context.Background())
		if err == nil && got == value {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pgtest: %s is %q, want %q (%v)", name, got, value, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// InRecovery reports whether the server is a standby (pg_is_in_recovery()).
func (c *Cluster) InRecovery(t testing.TB) bool {
	t.Helper()
	conn := c.connect(t)
	defer conn.Close(context.Background())
	var in bool
	if err := conn.QueryRow(t.Context(), "SELECT pg_is_in_recovery()").Scan(&in); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return in
}

// WaitStreaming waits, up to 30s, until c is a standby that streams from
// primary (a walsender on primary reports it streaming).
func (c *Cluster) WaitStreaming(t testing.TB, primary *Cluster) {
	t.Helper()
	conn := primary.connect(t)
	defer conn.Close(context.Background())
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		err := conn.QueryRow(t.Context(), "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'").Scan(&n)
		if err == nil && n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pgtest: the standby on port %d does not stream from port %d (%v); its log:\n%s", c.port, primary.port, err, tail(c.Log(), 20))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// exec1 runs statements on a connection of its own, closed after.
func (c *Cluster) exec1(t testing.TB, statements ...string) {
	t.Helper()
	conn := c.connect(t)
	defer conn.Close(context.Background())
	for _, s := range statements {
		if _, err := conn.Exec(t.Context(), s); err != nil {
			t.Fatalf("pgtest: %s: %v", s, err)
		}
	}
}

// connect opens a superuser connection that the caller closes.
func (c *Cluster) connect(t testing.TB) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.DSN("application_name", "pgtest"))
	if err != nil {
		t.Fatalf("pgtest: connect to port %d: %v", c.port, err)
	}
	return conn
}
