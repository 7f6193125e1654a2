package chaos

import "sync"

// probeBox matches round-trip notifications to the probes waiting for
// them.
type probeBox struct {
	mu      sync.Mutex
	next    uint64
	waiting map[uint64]chan struct{}
}

func (b *probeBox) expect() (uint64, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.waiting == nil {
		b.waiting = map[uint64]chan struct{}{}
	}
	b.next++
	ch := make(chan struct{})
	b.waiting[b.next] = ch
	return b.next, ch
}

func (b *probeBox) deliver(n uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if ch, ok := b.waiting[n]; ok {
		close(ch)
		delete(b.waiting, n)
	}
}

func (b *probeBox) forget(n uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.waiting, n)
}
