package rpc_test

import (
	"crypto/x509"
	"net"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/redial-go/redial/adapters/tcp/rpc"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

// rpc's classes are tcp's: the connection under rpc2 fails the same ways.
func TestClassifyIsTCPs(t *testing.T) {
	assert.True(t, backoff.IsPermanent(rpc.Classify(x509.UnknownAuthorityError{})))
	assert.ErrorIs(t, rpc.Classify(&net.OpError{Op: "read", Net: "tcp", Err: syscall.ETIMEDOUT}), supervisor.ErrSilent)
	assert.ErrorContains(t, rpc.Classify(&net.DNSError{Name: "x.invalid", IsNotFound: true}), `host "x.invalid" not found in DNS`)
	assert.NoError(t, rpc.Classify(nil))
}
