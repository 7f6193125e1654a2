package sse_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(feedEnv) != "" { // the test binary as a feed server (dead_test.go)
		serveFeed()
		return
	}
	goleak.VerifyTestMain(m)
}
