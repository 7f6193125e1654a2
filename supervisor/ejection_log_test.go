package supervisor_test

import (
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// textAttr matches one key=value of slog's TextHandler.
var textAttr = regexp.MustCompile(`(\w+)=("(?:[^"\\]|\\.)*"|\S+)`)

// endpointRecords returns the attributes of the records in b whose msg
// begins with "endpoint".
func endpointRecords(t *testing.T, b *testkit.Buffer) []map[string]string {
	t.Helper()
	var out []map[string]string
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		m := map[string]string{}
		for _, kv := range textAttr.FindAllStringSubmatch(line, -1) {
			v, err := strconv.Unquote(kv[2])
			if err != nil {
				v = kv[2]
			}
			m[kv[1]] = v
		}
		if strings.HasPrefix(m["msg"], "endpoint") {
			out = append(out, m)
		}
	}
	return out
}

// TestEjectionAndRecoveryAreLogged: a replica that keeps refusing is
// logged at Warn when it is ejected (its consecutive failures, for how
// long), again when its probe fails, and at Info once a connection on it
// made it healthy again; a stock TextHandler reads them.
func TestEjectionAndRecoveryAreLogged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs testkit.Buffer
		r := newReplicas("a", "b", "c")
		r.set(0, errRefused)
		o := ejectOptions(false)
		o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		s := start(t, r, o)
		s.untilConnected(t)
		for attemptsOn(r.history(), 0) < 3 {
			churn(t, s, r, 1)
		}
		a := s.Endpoints()[0]
		require.Equal(t, health.EndpointEjected, a.State)
		recs := endpointRecords(t, &logs)
		require.Len(t, recs, 1, "one record: the ejection")
		ejected := func(rec map[string]string, failures int, lo, hi time.Duration) {
			t.Helper()
			assert.Equal(t, "WARN", rec["level"])
			assert.Equal(t, "endpoint ejected", rec["msg"])
			assert.Equal(t, "svc", rec["name"])
			assert.Equal(t, "a", rec["endpoint"])
			assert.Equal(t, strconv.Itoa(failures), rec["consecutive_failures"])
			d, err := time.ParseDuration(rec["ejected_for"])
			require.NoError(t, err, rec["ejected_for"])
			assert.GreaterOrEqual(t, d, lo)
			assert.LessOrEqual(t, d, hi)
		}
		ejected(recs[0], 3, 5*time.Second, 10*time.Second)

		time.Sleep(time.Until(a.EjectedUntil))
		probed := false
		for !probed {
			probed = attemptsOn(churn(t, s, r, 1), 0) > 0
		}
		a = s.Endpoints()[0]
		require.Equal(t, health.EndpointEjected, a.State, "the probe failed")
		recs = endpointRecords(t, &logs)
		require.Len(t, recs, 2, "the failed probe ejects it again")
		ejected(recs[1], 4, 10*time.Second, 20*time.Second)

		r.set(0, nil)
		time.Sleep(time.Until(a.EjectedUntil))
		for s.Status().Endpoint != "a" {
			churn(t, s, r, 1)
		}
		recs = endpointRecords(t, &logs)
		require.Len(t, recs, 3, "healthy again")
		assert.Equal(t, map[string]string{"level": "INFO", "msg": "endpoint healthy again", "name": "svc", "endpoint": "a", "time": recs[2]["time"]}, recs[2])
		churn(t, s, r, 2)
		assert.Len(t, endpointRecords(t, &logs), 3, "said once")
		assert.NoError(t, s.stop())
	})
}
