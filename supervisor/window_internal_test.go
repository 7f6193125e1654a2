package supervisor

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestWindowCountsTheLastMinuteOnly(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w := window{origin: t0}
	for i := range 10 {
		w.add(t0.Add(time.Duration(i) * time.Second))
	}
	assert.Equal(t, 10, w.count(t0.Add(10*time.Second)))
	assert.Equal(t, 10, w.count(t0.Add(59*time.Second)))
	assert.Equal(t, 5, w.count(t0.Add(64*time.Second)), "the first 5s bucket left the window")
	assert.Equal(t, 0, w.count(t0.Add(70*time.Second)))
	w.add(t0.Add(time.Hour))
	assert.Equal(t, 1, w.count(t0.Add(time.Hour+time.Second)), "a long gap clears every bucket")
	assert.Equal(t, 1, w.count(t0.Add(time.Second)), "time going backwards changes nothing")
}
