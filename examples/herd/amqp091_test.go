package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// amqp091-go's recovery against one broker: down longer than its five
// 5 s waits, every client gives up. Down 12 s, its waves (every client
// within 500 ms, 5 s apart) overrun the broker's capacity, and those
// refused at the fifth attempt give up for good too; redial's policy
// brings every client back, its peak a fraction of the waves'.
func TestBrokerRows(t *testing.T) {
	s := small()
	rs, err := simulateBroker(s) // down 30s
	require.NoError(t, err)
	a, r := rs[0], rs[1]
	assert.Equal(t, s.N, a.Left, "amqp091: everyone gave up after 5 attempts")
	assert.Equal(t, 5*s.N, a.Attempts)
	assert.Zero(t, r.Left, "redial: everyone back")

	s.Down = 12 * time.Second
	rs, err = simulateBroker(s)
	require.NoError(t, err)
	a, r = rs[0], rs[1]
	assert.Positive(t, a.Left, "amqp091: some gave up though the broker was back")
	assert.Zero(t, r.Left)
	capacity := float64(s.Rate) * s.Window.Seconds()
	ma, mr := measure(s, a), measure(s, r)
	t.Logf("gave up %d of %d; peak once up: amqp091 %.1fx capacity, redial %.1fx", a.Left, s.N, ma.peakAfterUp/capacity, mr.peakAfterUp/capacity)
	assert.Greater(t, ma.peakAfterUp, 5*capacity, "a wave of N within 500 ms")
	assert.Less(t, mr.peakAfterUp, ma.peakAfterUp/2)
	var b strings.Builder
	reportBroker(&b, s, rs)
	assert.Contains(t, b.String(), "| amqp091 recovery |")
}
