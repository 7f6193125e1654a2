package health_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
)

func TestStateNamesAreLowerCaseAndRoundTrip(t *testing.T) {
	want := []string{"idle", "connecting", "connected", "backoff", "stopped", "failed"}
	for i, s := range health.States() {
		assert.Equal(t, want[i], s.String())
		b, err := json.Marshal(s)
		require.NoError(t, err)
		assert.Equal(t, `"`+want[i]+`"`, string(b))
		var back health.State
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, s, back)
	}
	assert.Equal(t, "state(42)", health.State(42).String())
	var s health.State
	assert.Error(t, s.UnmarshalText([]byte("Connected")))
}
