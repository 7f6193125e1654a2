package sse_test

import (
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/supervisor"
)

// Replace: the new stream resumes after the last event read, so the
// Events loop sees every event once, in order, and one ErrSwitched
// between the streams.
func TestReplaceResumesWithOneSwitchSignal(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
		from, _ := strconv.Atoi(r.Header.Get("Last-Event-ID"))
		stream(w)
		for i := from + 1; ; i++ {
			send(w, strconv.Itoa(i), "event "+strconv.Itoa(i))
			select {
			case <-time.After(2 * time.Millisecond):
			case <-r.Context().Done():
				return
			}
		}
	})
	c := start(t, srv.URL+"/events", testOptions(), nil)
	last, switches := 0, 0
	for last < 300 {
		g := c.next(t, 5*time.Second)
		if g.err != nil {
			require.True(t, errors.Is(g.err, supervisor.ErrSwitched), "%v", g.err)
			switches++
			continue
		}
		id, err := strconv.Atoi(g.ev.ID)
		require.NoError(t, err)
		require.Equal(t, last+1, id, "every event once, in order")
		last = id
		if id == 100 || id == 200 {
			c.Replace()
		}
	}
	t.Logf("%d events once each, in order; %d switches over %d connections", last, switches, c.Status().Connects)
	assert.Equal(t, 2, switches)
	assert.EqualValues(t, 3, c.Status().Connects)
	assert.Equal(t, 3, srv.count())
}
