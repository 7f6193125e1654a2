package postgres_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// Listener and Pool are health.HistorySource, for the status page.
var (
	_ health.HistorySource = (*postgres.Listener)(nil)
	_ health.HistorySource = (*postgres.Pool)(nil)
)

// TestEndpointsAreTheDSNsHosts checks which endpoints a DSN makes, from
// the attempts on hosts where nothing listens: one per host, named
// host:port, in the DSN's order, a host's TLS-then-plain tries of
// sslmode=prefer kept together in one attempt; none (Status.Endpoint "")
// with one host, or with target_session_attrs=prefer-standby, whose
// choice needs every host's answer, so pgx walks the list each attempt.
func TestEndpointsAreTheDSNsHosts(t *testing.T) {
	t.Parallel()
	const a, b = "127.0.0.1:1", "127.0.0.1:2"
	for _, tc := range []struct {
		name, dsn string
		want      []string // the endpoints of the first attempts, in order
	}{
		{"two hosts", "postgres://u:Zq9-secret@" + a + "," + b + "/db?sslmode=disable", []string{a, b, a}},
		{"key=value", "host=127.0.0.1,127.0.0.1 port=1,2 user=u password=Zq9-secret dbname=db sslmode=disable", []string{a, b, a}},
		{"sslmode=prefer", "postgres://u:Zq9-secret@" + a + "," + b + "/db?sslmode=prefer", []string{a, b, a}},
		{"one host", "postgres://u:Zq9-secret@" + a + "/db?sslmode=prefer", []string{"", "", ""}},
		{"prefer-standby", "postgres://u:Zq9-secret@" + a + "," + b + "/db?sslmode=disable&target_session_attrs=prefer-standby", []string{"", "", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := postgres.NewConn(tc.dsn, postgres.ConnOptions{Supervisor: supervisor.Settings{Backoff: fast}})
			require.NoError(t, err)
			testkit.Run(t, s)
			testkit.WaitStatus(t, s, 10*time.Second, "three attempts", func(st health.Status) bool { return st.ConsecutiveFailures >= 3 })
			tried := attempts(s.History())
			require.GreaterOrEqual(t, len(tried), 3)
			for i, want := range tc.want {
				assert.Equal(t, want, tried[i].Endpoint, "attempt %d", i+1)
				if want == "" {
					continue
				}
				other := a
				if want == a {
					other = b
				}
				assert.NotContains(t, tried[i].Err.Error(), other, "attempt %d dialed another host", i+1)
				if strings.Contains(tc.dsn, "sslmode=prefer") {
					assert.Equal(t, 2, strings.Count(tried[i].Err.Error(), want+" (127.0.0.1)"), "TLS and plain in one attempt: %v", tried[i].Err)
				}
			}
			for _, tr := range s.History() {
				assert.NotContains(t, tr.Endpoint, "Zq9")
			}
		})
	}
}

// TestEndpointNamesHoldNoSecret: an endpoint is named host:port from the
// parsed config; a host that shares text with the password (a malformed
// DSN that pgx read another way than its author meant) is masked whole.
func TestEndpointNamesHoldNoSecret(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"db1:5432", "db2:5433"}, postgres.EndpointNames("postgres://app:Zq9-secret@db1:5432,db2:5433/db"))
	assert.Equal(t, []string{"[::1]:5432", "db2:5432"}, postgres.EndpointNames("host=::1,db2 user=app password=Zq9-secret dbname=db"))
	assert.Empty(t, postgres.EndpointNames("postgres://app:Zq9-secret@db1:5432/db?sslmode=prefer"), "one host: no endpoints")
	names := postgres.EndpointNames("host=db1,Zq9-secret port=5432,5433 user=app password=Zq9-secret dbname=db")
	require.Len(t, names, 2)
	assert.Equal(t, "db1:5432", names[0])
	assert.NotContains(t, names[1], "Zq9")
	assert.True(t, strings.HasSuffix(names[1], ":5433"), names[1])
}
