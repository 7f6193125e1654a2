package supervisor_test

import (
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// records parses the JSON log records in b.
func records(t *testing.T, b *testkit.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		out = append(out, m)
	}
	return out
}

func newLogger(b *testkit.Buffer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func TestLogOneRecordPerStateChangeWithStableAttributes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs testkit.Buffer
		secret := errors.New("connect postgres://app:hunter22@db/x: connection refused")
		f := &fake{results: []error{secret}}
		o := exponential(time.Second, time.Minute)
		o.Logger = newLogger(&logs)
		r := start(t, f, o)
		r.untilConnected(t)
		time.Sleep(5 * time.Second)
		f.last().broken <- errors.New("read: connection reset by peer")
		synctest.Wait()
		require.NoError(t, r.stop())

		var got []string
		for _, rec := range records(t, &logs) {
			got = append(got, rec["level"].(string)+" "+rec["msg"].(string)+" "+rec["state"].(string))
			assert.Equal(t, "test", rec["name"])
			switch rec["msg"] {
			case "attempt failed":
				assert.Contains(t, rec, "consecutive_failures")
				assert.Contains(t, rec, "delay")
				assert.Equal(t, "backoff", rec["reason"])
				assert.Contains(t, rec["err"], "app:xxxxx@db")
			case "connection lost":
				assert.Equal(t, float64(5*time.Second), rec["uptime"])
				assert.Equal(t, "backoff", rec["reason"], "5s is less than StableAfter: flapping")
				assert.Contains(t, rec["err"], "connection reset by peer")
			}
		}
		assert.Equal(t, []string{
			"DEBUG connecting connecting",
			"WARN attempt failed backoff",
			"DEBUG connecting connecting",
			"INFO connected connected",
			"WARN connection lost backoff",
			"INFO stopped stopped",
		}, got)
		assert.NotContains(t, logs.String(), "hunter22")
	})
}

func TestLogHintAndGaveUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs testkit.Buffer
		f := &fake{results: []error{backoff.RetryAfter(errRefused, 9*time.Second), backoff.Permanent(errors.New("401"))}}
		o := exponential(time.Second, time.Minute)
		o.Logger = newLogger(&logs)
		r := start(t, f, o)
		<-r.done
		recs := records(t, &logs)
		var failed, gaveUp map[string]any
		for _, rec := range recs {
			switch rec["msg"] {
			case "attempt failed":
				failed = rec
			case "gave up":
				gaveUp = rec
			}
		}
		require.NotNil(t, failed)
		assert.Equal(t, "hint", failed["reason"])
		assert.Equal(t, float64(9*time.Second), failed["hint"])
		require.NotNil(t, gaveUp)
		assert.Equal(t, "ERROR", gaveUp["level"])
		assert.Equal(t, "failed", gaveUp["state"])
		r.cancel()
	})
}

func TestRepeatedIdenticalFailuresAreDemoted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs testkit.Buffer
		f := &fake{results: errs(12, errRefused)}
		o := exponential(time.Second, 10*time.Second)
		o.Logger = newLogger(&logs)
		r := start(t, f, o)
		r.untilConnected(t)
		require.NoError(t, r.stop())
		// Failures at t = 0, 1, 3, 7, 15, 25, 35, 45, 55, 65, 75, 85s.
		var levels []string
		for _, rec := range records(t, &logs) {
			if rec["msg"] == "attempt failed" {
				levels = append(levels, rec["level"].(string))
			}
		}
		W, D := "WARN", "DEBUG"
		assert.Equal(t, []string{W, W, W, D, D, D, D, D, D, W, D, D}, levels,
			"three warnings, then debug, then one warning a minute after the last")
	})
}
