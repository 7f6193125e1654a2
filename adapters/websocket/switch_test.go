package websocket_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/supervisor"
)

// replayServer sends "0", "1", ... one every tick, starting from the
// request's ?from=, as a feed that replays from a position does.
func replayServer(t *testing.T, tick time.Duration) string {
	srv := startServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		c := s.accept(w, r)
		if c == nil {
			return
		}
		defer s.Forget(c)
		ctx := c.CloseRead(r.Context()) // answers the client's close
		from, _ := strconv.Atoi(r.URL.Query().Get("from"))
		t := time.NewTicker(tick)
		defer t.Stop()
		for seq := from; ; seq++ {
			if c.Write(ctx, websocket.MessageText, []byte(strconv.Itoa(seq))) != nil {
				return
			}
			select {
			case <-t.C:
			case <-ctx.Done():
				return
			}
		}
	})
	return srv.url("/feed")
}

// feedResult is what a program reading a replaying feed counted.
type feedResult struct {
	last, lost, dups, switches int
	errs                       []error
}

// readFeed runs a feed with MaxConnectionAge age against a replaying
// server for d, resuming from the position after the last message seen,
// and counts.
func readFeed(t *testing.T, age, d time.Duration) (feedResult, uint64) {
	u := replayServer(t, time.Millisecond)
	var last atomic.Int64
	last.Store(-1)
	o := testOptions()
	o.Supervisor.MaxConnectionAge = age
	o.BeforeConnect = func(_ context.Context, u *url.URL, _ http.Header) error {
		q := u.Query()
		q.Set("from", strconv.FormatInt(last.Load()+1, 10))
		u.RawQuery = q.Encode()
		return nil
	}
	s, err := redialws.New(u, o)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()
	res := feedResult{last: -1}
	for m, err := range redialws.Messages(context.Background(), s) {
		switch {
		case errors.Is(err, supervisor.ErrSwitched):
			res.switches++
			continue
		case err != nil:
			res.errs = append(res.errs, err)
			continue
		}
		seq, err := strconv.Atoi(string(m.Data))
		require.NoError(t, err)
		switch {
		case seq <= res.last:
			res.dups++ // what the new connection replays of the old one's
		case seq > res.last+1:
			res.lost += seq - res.last - 1
			fallthrough
		default:
			res.last = seq
			last.Store(int64(seq))
		}
	}
	require.NoError(t, <-ran)
	return res, s.Status().Connects
}

// A feed whose connections are replaced by age against a server that
// replays from a position: nothing lost, one ErrSwitched per replacement,
// no other error.
func TestMaxConnectionAgeFeedLosesNothing(t *testing.T) {
	res, connects := readFeed(t, 500*time.Millisecond, 5*time.Second)
	t.Logf("%d messages, %d connections, %d switches, %d replayed twice, %d lost", res.last+1, connects, res.switches, res.dups, res.lost)
	assert.Zero(t, res.lost)
	assert.Empty(t, res.errs)
	assert.GreaterOrEqual(t, connects, uint64(6))
	assert.EqualValues(t, connects-1, res.switches, "one switch signal per replacement")
}

// The measurement of issue 29: a 10 s maximum age for 2 minutes.
func TestMaxConnectionAgeFeedTwoMinutes(t *testing.T) {
	if os.Getenv("REDIAL_LONG") == "" {
		t.Skip("a 2-minute measurement: set REDIAL_LONG=1")
	}
	res, connects := readFeed(t, 10*time.Second, 2*time.Minute)
	t.Logf("%d messages, %d connections, %d switches, %d replayed twice, %d lost", res.last+1, connects, res.switches, res.dups, res.lost)
	assert.Zero(t, res.lost)
	assert.Empty(t, res.errs)
	assert.EqualValues(t, connects-1, res.switches)
}
