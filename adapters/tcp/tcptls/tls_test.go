package tcptls_test

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/adapters/tcp/tcptls"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

func TestTLSConfigErrorsArePermanent(t *testing.T) {
	serverTLS, _ := testkit.SelfSigned(t)
	for name, tc := range map[string]struct {
		handle string
		cfg    *tls.Config
		want   string
	}{
		"unknown authority": {"tls", &tls.Config{}, "certificate signed by unknown authority"},
		"nil: the system's": {"tls", nil, "certificate signed by unknown authority"},
		"wrong host name":   {"tls", &tls.Config{ServerName: "example.com", RootCAs: testkit.Pool(t, serverTLS)}, "wanted to match example.com"},
		"not a TLS server":  {"greet", &tls.Config{}, "does not look like a TLS handshake"},
	} {
		t.Run(name, func(t *testing.T) {
			handle := testkit.TLSServe(serverTLS, testkit.Echo)
			if tc.handle == "greet" {
				handle = testkit.Greet
			}
			srv := testkit.StartServer(t, handle)
			// A program's Classify (here one that only annotates) runs after
			// the adapter's and keeps its classes.
			annotate := func(err error) error { return fmt.Errorf("feed: %w", err) }
			s, err := tcptls.New(srv.Addr, tcptls.Options{TLS: tc.cfg, Options: tcp.Options{
				Supervisor: supervisor.Settings{Classify: annotate}}})
			require.NoError(t, err)
			err = s.Run(testkit.CtxWait(t))
			require.ErrorIs(t, err, supervisor.ErrFailed)
			assert.ErrorContains(t, err, tc.want)
			st := s.Status()
			assert.Equal(t, health.Failed, st.State)
			assert.Equal(t, 1, st.ConsecutiveFailures, "given up at the first attempt")
			assert.True(t, backoff.IsPermanent(st.Err))
		})
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err       error
		permanent bool
		says      string
	}{
		{fmt.Errorf("tls: %w", x509.UnknownAuthorityError{}), true, "unknown authority"},
		{x509.HostnameError{Certificate: &x509.Certificate{}, Host: "h"}, true, "h"},
		{x509.CertificateInvalidError{Cert: &x509.Certificate{}, Reason: x509.NotAuthorizedToSign}, true, "not authorized"},
		{x509.CertificateInvalidError{Cert: &x509.Certificate{}, Reason: x509.Expired}, false, "expired"},
		{&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "x.invalid", IsNotFound: true}}, false, `host "x.invalid" not found in DNS`},
		{backoff.Permanent(errors.New("already")), true, "already"},
	} {
		got := tcptls.Classify(tc.err)
		assert.Equal(t, tc.permanent, backoff.IsPermanent(got), "%v", tc.err)
		assert.ErrorContains(t, got, tc.says)
		assert.ErrorIs(t, got, tc.err, "the cause stays in the chain")
	}
	assert.ErrorIs(t, tcptls.Classify(&net.OpError{Op: "read", Net: "tcp", Err: syscall.ETIMEDOUT}), supervisor.ErrSilent, "tcp's classes")
	assert.NoError(t, tcptls.Classify(nil))
}
