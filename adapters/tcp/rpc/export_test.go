package rpc

import (
	"github.com/cenkalti/rpc2"

	"github.com/redial-go/redial/supervisor"
)

// PendingOf returns a func that tells how many calls abandoned on
// client's connection still wait for a reply; it keeps working after the
// connection closed.
func PendingOf(r *Client, client *rpc2.Client) func() int {
	s := r.c.session(client)
	if s == nil {
		return func() int { return -1 }
	}
	return s.pending
}

// Sup returns the supervisor under r: the tests of the adapter's rules
// reach what a program cannot.
func (r *Client) Sup() *supervisor.Supervisor[*rpc2.Client] { return r.sup }
