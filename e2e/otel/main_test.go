// Package otel_test tests health/otel with the OpenTelemetry SDK, which the
// library module does not require.
package otel_test

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
