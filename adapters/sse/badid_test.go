package sse_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/internal/testing/testkit"
)

// lockedBuffer is a log sink safe for the supervisor's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestAnIDNetHTTPRefusesIsNotAdopted: a server's `id: a\x01b` could not be
// sent back as Last-Event-ID (net/http refuses the request before it is
// sent, at every attempt). The Client keeps the last id that can be: the
// events carry it, LastEventID says it, the next request resumes from it,
// and the Logger is told once however often the server sends such ids.
// Before, the second request never reached the server.
func TestAnIDNetHTTPRefusesIsNotAdopted(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
		stream(w)
		if n == 1 {
			send(w, "1", "one")
		}
		send(w, "a\x01b", "two")
		fmt.Fprint(w, "data: three\n\n") // no id: the stream's last id
		w.(http.Flusher).Flush()
		if n > 1 {
			<-r.Context().Done()
		}
	})
	logs := &lockedBuffer{}
	o := testOptions()
	o.Supervisor.Logger = slog.New(slog.NewTextHandler(logs, nil))
	c := start(t, srv.URL+"/events", o, nil)
	var ids, data []string
	for len(data) < 5 {
		g := c.next(t, 5*time.Second)
		if g.err == nil {
			ids, data = append(ids, g.ev.ID), append(data, g.ev.Data)
		}
	}
	assert.Equal(t, []string{"one", "two", "three", "two", "three"}, data)
	assert.Equal(t, []string{"1", "1", "1", "1", "1"}, ids, "the refused id is not the events'")
	testkit.WaitStatus(t, c, 5*time.Second, "the second stream", testkit.Connected(2))
	assert.Equal(t, "1", srv.request(2).Header.Get("Last-Event-ID"), "resumes from the last id that can be sent")
	assert.Equal(t, "1", c.LastEventID())
	require.NoError(t, c.stop())
	assert.Equal(t, 1, strings.Count(logs.String(), "event id refused"), "told once: %s", logs.String())
	assert.Contains(t, logs.String(), `id="\"a\\x01b\""`)
}
