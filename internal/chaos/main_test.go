package chaos

import (
	"testing"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// toxiproxy's bandwidth toxic logs every interruption through
	// zerolog's global logger, at trace level.
	zerolog.SetGlobalLevel(zerolog.Disabled)
	goleak.VerifyTestMain(m)
}
