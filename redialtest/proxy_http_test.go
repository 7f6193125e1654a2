package redialtest_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/redialtest"
)

// Each fault against an HTTP server: what a client sees, and that Heal
// brings the answers back.
func TestProxyHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/wait" {
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done() // a long poll
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	t.Cleanup(client.CloseIdleConnections)
	get := func(p *redialtest.Proxy, path string) (string, error) {
		res, err := client.Get("http://" + p.Addr() + path)
		if err != nil {
			return "", err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return string(b), err
	}
	// held starts a GET, checks that no answer comes while the fault
	// holds, heals, and checks the answer then.
	held := func(t *testing.T, p *redialtest.Proxy) {
		got := make(chan string, 1)
		go func() { body, _ := get(p, "/"); got <- body }()
		select {
		case body := <-got:
			t.Fatalf("answered through the fault: %q", body)
		case <-time.After(200 * time.Millisecond):
		}
		p.Heal()
		assert.Equal(t, "ok", <-got)
	}

	t.Run("kill", func(t *testing.T) {
		p := redialtest.NewProxy(t, srv.Listener.Addr().String())
		res, err := client.Get("http://" + p.Addr() + "/wait")
		require.NoError(t, err)
		defer res.Body.Close()
		p.Kill()
		_, err = io.ReadAll(res.Body)
		assert.ErrorIs(t, err, syscall.ECONNRESET)
	})
	t.Run("refuse", func(t *testing.T) {
		p := redialtest.NewProxy(t, srv.Listener.Addr().String())
		p.Refuse()
		_, err := get(p, "/")
		assert.ErrorIs(t, err, syscall.ECONNREFUSED)
		p.Heal()
		body, err := get(p, "/")
		require.NoError(t, err)
		assert.Equal(t, "ok", body)
	})
	t.Run("blackhole", func(t *testing.T) {
		p := redialtest.NewProxy(t, srv.Listener.Addr().String())
		p.Blackhole()
		held(t, p)
	})
	t.Run("stall", func(t *testing.T) {
		p := redialtest.NewProxy(t, srv.Listener.Addr().String())
		p.Stall()
		held(t, p)
	})
	t.Run("latency", func(t *testing.T) {
		p := redialtest.NewProxy(t, srv.Listener.Addr().String())
		p.Latency(50 * time.Millisecond)
		start := time.Now()
		body, err := get(p, "/")
		require.NoError(t, err)
		assert.Equal(t, "ok", body)
		assert.GreaterOrEqual(t, time.Since(start), 100*time.Millisecond, "a request and its answer")
	})
}
