package supervisor_test

import (
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/internal/testing/testkit"
)

// At Info, with the repeated failures after the third quieted to Debug,
// the connected record says how long the outage was and how many
// attempts it took: the log explains its gap.
func TestConnectedRecordSumsUpTheOutage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs testkit.Buffer
		f := &fake{results: errs(8, errRefused)}
		o := exponential(time.Second, 4*time.Second) // waits 1, 2, 4, 4, ...: 27s over 8 failures
		o.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
		r := start(t, f, o)
		began := time.Now()
		r.untilConnected(t)
		firstOutage := time.Since(began)
		f.last().broken <- errRefused // lost; the next attempt connects
		r.untilConnected(t)
		require.NoError(t, r.stop())

		var connected []map[string]any
		failures := 0
		for _, rec := range records(t, &logs) {
			switch rec["msg"] {
			case "connected":
				connected = append(connected, rec)
			case "attempt failed":
				failures++
			}
		}
		require.Less(t, failures, 8, "some failures were quieted")
		require.Len(t, connected, 2)
		assert.Equal(t, float64(firstOutage), connected[0]["outage"], "the outage since Run began")
		assert.Equal(t, float64(9), connected[0]["attempts"])
		assert.Equal(t, 27*time.Second, firstOutage)
		assert.Equal(t, float64(4*time.Second), connected[1]["outage"], "since the loss: the backoff's wait (Cap, the connection lived no StableAfter)")
		assert.Equal(t, float64(1), connected[1]["attempts"])
	})
}
