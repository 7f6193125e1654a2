package toxitest

import (
	"testing"
	"time"

	"github.com/Shopify/toxiproxy/v2/stream"
	"github.com/Shopify/toxiproxy/v2/toxics"
)

// stallToxic is the type name of the toxic Stall adds.
const stallToxic = "redial_stall"

func init() { toxics.Register(stallToxic, new(holdToxic)) }

// Stall holds everything that comes down stream ("upstream" or
// "downstream") — data and the close alike — until the toxic is removed:
// a peer that vanished without a word. toxiproxy's own timeout toxic with
// timeout 0 drops the data but lets a close through.
func (p *Proxy) Stall(t testing.TB, name, stream string) {
	p.Add(t, name, stallToxic, stream, nil)
}

// holdToxic holds every chunk, and the end of the stream, until it is
// removed; then it passes them on.
type holdToxic struct{}

// flushBudget is how long a removed toxic waits for a writer to take what
// it held: one that takes nothing has exited with its dead connection.
const flushBudget = time.Second

func (holdToxic) Pipe(stub *toxics.ToxicStub) {
	var held []*stream.StreamChunk
	input := stub.Input
	for {
		select {
		case <-stub.Interrupt:
			budget := time.NewTimer(flushBudget)
			defer budget.Stop()
			for _, c := range held {
				select {
				case stub.Output <- c:
				case <-budget.C:
					return
				}
			}
			return
		case c := <-input:
			if c == nil {
				input = nil // closed: the close follows the data when the toxic is removed
			} else {
				held = append(held, c)
			}
		}
	}
}
