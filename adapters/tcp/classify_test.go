package tcp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

func TestClassify(t *testing.T) {
	op := func(err error) error { return &net.OpError{Op: "dial", Net: "tcp", Err: err} }
	for _, tc := range []struct {
		err       error
		permanent bool
		says      string
	}{
		{op(syscall.ECONNREFUSED), false, "connection refused"},
		{op(syscall.ECONNRESET), false, "connection reset"},
		{op(syscall.ETIMEDOUT), false, "timed out"},
		{io.EOF, false, "EOF"},
		{context.DeadlineExceeded, false, "deadline"},
		{op(&net.DNSError{Err: "no such host", Name: "x.invalid", IsNotFound: true}), false, `host "x.invalid" not found in DNS`},
		{op(&net.DNSError{Err: "server misbehaving", Name: "x.invalid", IsTemporary: true}), false, `DNS lookup of "x.invalid" failed`},
		{backoff.Permanent(errors.New("already")), true, "already"},
	} {
		got := tcp.Classify(tc.err)
		assert.Equal(t, tc.permanent, backoff.IsPermanent(got), "%v", tc.err)
		assert.ErrorContains(t, got, tc.says)
		assert.ErrorIs(t, got, tc.err, "the cause stays in the chain")
	}
	assert.NoError(t, tcp.Classify(nil))
}

// A read or write the kernel timed out (keep-alive's probes or
// TCP_USER_TIMEOUT went unanswered) is a silent peer; a dial that timed
// out is an attempt's failure, and a deadline the program set is not the
// peer's doing.
func TestClassifySilent(t *testing.T) {
	op := func(name string, err error) error { return &net.OpError{Op: name, Net: "tcp", Err: err} }
	for _, tc := range []struct {
		err    error
		silent bool
	}{
		{op("read", os.NewSyscallError("read", syscall.ETIMEDOUT)), true},
		{fmt.Errorf("wrapped: %w", op("write", syscall.ETIMEDOUT)), true},
		{op("dial", syscall.ETIMEDOUT), false},
		{op("read", os.ErrDeadlineExceeded), false},
		{op("read", syscall.ECONNRESET), false},
	} {
		got := tcp.Classify(tc.err)
		assert.Equal(t, tc.silent, errors.Is(got, supervisor.ErrSilent), "%v", tc.err)
		assert.ErrorIs(t, got, tc.err)
		assert.False(t, backoff.IsPermanent(got))
	}
	once := tcp.Classify(op("read", syscall.ETIMEDOUT))
	assert.Equal(t, once, tcp.Classify(once), "classified twice, said once")
}
