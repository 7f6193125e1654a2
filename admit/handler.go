package admit

import (
	"net/http"
	"strconv"
	"time"
)

// CloseTryAgainLater is the WebSocket close code that carries CloseReason.
const CloseTryAgainLater = 1013

// Handler passes requests to next at the Planner's pace, each after its
// slot's wait (dropped if its client goes); the rest are answered 503 with
// the Retry-After of their slot. Every request it sees takes a slot.
func (p *Planner) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wait, ok := p.Plan(time.Now())
		if !ok {
			w.Header().Set("Retry-After", strconv.FormatInt(int64(wait/time.Second), 10))
			w.Header().Set("Connection", "close") // the server closes: its TIME_WAIT, not the client's
			http.Error(w, "503 service unavailable: come back at your slot", http.StatusServiceUnavailable)
			return
		}
		if !sleep(r, wait) {
			return
		}
		for d := p.release(time.Now()); d > 0; d = p.release(time.Now()) {
			if !sleep(r, d) {
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func sleep(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.Context().Done():
		return false
	case <-t.C:
		return true
	}
}

// CloseReason is a close 1013's reason for a refused Plan's wait,
// "retry-after=N", which redial's clients read as a Retry-After.
func CloseReason(retryAfter time.Duration) string {
	return "retry-after=" + strconv.FormatInt(int64(max(retryAfter, time.Second)/time.Second), 10)
}
