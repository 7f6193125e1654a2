package postgres_test

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/redial-go/redial/internal/testing/pgtest"
)

// shared is the cluster of the tests that do not stop, restart or crash
// the server; those start their own.
var shared *pgtest.Cluster

// rejecting is a second cluster that is never stopped either, for the
// tests of DSNs with several hosts: its pg_hba.conf rejects every login to
// the database "rejected" (SQLSTATE 28000); other databases are as on any
// cluster.
var rejecting *pgtest.Cluster

func TestMain(m *testing.M) {
	type started struct {
		c   *pgtest.Cluster
		err error
	}
	ch := make(chan started, 1)
	go func() { // the two start at once
		c, err := pgtest.New(pgtest.Options{HBA: []string{"host rejected all 127.0.0.1/32 reject"}})
		ch <- started{c, err}
	}()
	c, err := pgtest.New(pgtest.Options{})
	r := <-ch
	if err := errors.Join(err, r.err); err != nil {
		fmt.Fprintln(os.Stderr, err) // e.g. how to install the server binaries
		for _, c := range []*pgtest.Cluster{c, r.c} {
			if c != nil {
				_ = c.Close()
			}
		}
		os.Exit(1)
	}
	shared, rejecting = c, r.c
	goleak.VerifyTestMain(withCluster{m})
}

// withCluster closes the shared clusters after the tests, before goleak
// looks for leftovers.
type withCluster struct{ m *testing.M }

func (w withCluster) Run() int {
	code := w.m.Run()
	if err := errors.Join(shared.Close(), rejecting.Close()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	return code
}
