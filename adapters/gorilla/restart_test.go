package gorilla_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestServerRestartResubscribes(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		srv := startServer(t, im, nil)
		o := testOptions()
		subscribeOnConnect(&o)
		c := run(t, srv.url("/feed"), o, true)
		srv.AssertResubscribes(t, c)
		require.NoError(t, c.Stop())
	})
}
