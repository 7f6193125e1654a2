package tcp_test

import (
	"crypto/tls"
	"fmt"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testkit"
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
			s := newTCP(t, srv.Addr, tcp.Options{TLS: tc.cfg,
				Supervisor: supervisor.Options[net.Conn]{Settings: supervisor.Settings{Classify: annotate}}})
			err := s.Run(testkit.CtxWait(t))
			require.ErrorIs(t, err, supervisor.ErrFailed)
			assert.ErrorContains(t, err, tc.want)
			st := s.Status()
			assert.Equal(t, health.Failed, st.State)
			assert.Equal(t, 1, st.Attempt, "given up at the first attempt")
			assert.True(t, backoff.IsPermanent(st.Err))
		})
	}
}
