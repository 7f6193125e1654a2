package chaos

import (
	"time"

	"github.com/Shopify/toxiproxy/v2/stream"
	"github.com/Shopify/toxiproxy/v2/toxics"
)

// The latency fault uses this toxic instead of toxiproxy's own latency
// toxic (and the bandwidth-0 fault toxitest.Stall, its twin, instead of
// toxiproxy's bandwidth toxic). Those keep data in
// toxiproxy's channels and block on plain sends: when a connection dies
// while they hold data (its client gave up, as supervisors do under
// these very faults), removing the toxic hands each held chunk to the
// link's exited writer with a 5s timeout, holding the proxy's lock meanwhile
// (Shopify/toxiproxy#558): a removal took minutes in this suite, and a
// send blocked for ever leaks the goroutine. This one reads its input at
// once, holds data itself, never blocks without also watching for an
// interruption, and gives up on a writer that takes nothing: it delivers
// everything on a live connection, in order, and drops only what a dead
// one can no longer take.
const (
	latencyToxic = "chaos_latency" // attribute "latency": milliseconds
	flushBudget  = time.Second     // how long a removal waits for the writer
)

func init() { toxics.Register(latencyToxic, new(delayToxic)) }

// delayToxic delays every chunk by Latency after it was read.
type delayToxic struct {
	Latency int64 `json:"latency"`
}

func (t *delayToxic) Pipe(stub *toxics.ToxicStub) {
	delay := time.Duration(t.Latency) * time.Millisecond
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var held []*stream.StreamChunk
	input := stub.Input // nil once the source closed
	for {
		var out chan<- *stream.StreamChunk
		var next *stream.StreamChunk
		var due, giveUp <-chan time.Time
		switch {
		case len(held) == 0 && input == nil:
			stub.Close()
			return
		case len(held) == 0:
		case time.Until(held[0].Timestamp.Add(delay)) > 0:
			timer.Reset(time.Until(held[0].Timestamp.Add(delay)))
			due = timer.C
		default:
			out, next = stub.Output, held[0]
			if input == nil { // the connection is closing: a writer that takes nothing is gone
				giveUp = time.After(flushBudget)
			}
		}
		select {
		case <-stub.Interrupt:
			flush(stub, held)
			return
		case c := <-input:
			if c == nil {
				input = nil
			} else {
				held = append(held, c)
			}
		case out <- next:
			held = held[1:]
		case <-due:
		case <-giveUp:
			stub.Close()
			return
		}
	}
}

// flush passes held on, in order, as long as the writer takes it within
// flushBudget: a writer that does not has exited, its connection dead.
func flush(stub *toxics.ToxicStub, held []*stream.StreamChunk) {
	budget := time.NewTimer(flushBudget)
	defer budget.Stop()
	for _, c := range held {
		select {
		case stub.Output <- c:
		case <-budget.C:
			return
		}
	}
}
