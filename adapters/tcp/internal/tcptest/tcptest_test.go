package tcptest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/adapters/tcp/internal/tcptest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestMaxAttempts(t *testing.T) {
	// attempts at 0, 20, 60, 140, 300, 620, 940ms
	require.Equal(t, 7, tcptest.MaxAttempts(20*time.Millisecond, 320*time.Millisecond, time.Second))
}
