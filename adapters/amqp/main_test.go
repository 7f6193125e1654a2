package amqp_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/redial-go/redial/internal/testing/rabbittest"
)

// rabbit is the broker the package's tests share. A test that kills,
// stops or freezes it starts it again before it ends.
var rabbit = rabbittest.NewShared(rabbittest.Options{})

func TestMain(m *testing.M) { goleak.VerifyTestMain(rabbittest.Main(m, rabbit)) }
