package redialtest

import (
	"net"
	"time"
)

// Kill ends every live connection abruptly: both sides get a reset (TCP
// RST), as when a server or a middlebox dies. New connections are
// accepted and relayed as before.
func (p *Proxy) Kill() {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.mu.Lock()
	killed := make([]*link, 0, len(p.links))
	for l := range p.links {
		p.abortLocked(l, true)
		killed = append(killed, l)
	}
	p.mu.Unlock()
	for _, l := range killed {
		<-l.exited
	}
}

// Refuse stops listening: a new connection is refused (ECONNREFUSED)
// until Heal listens again on the same address. Live connections stay.
func (p *Proxy) Refuse() {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.mu.Lock()
	ln, done := p.ln, p.accepting
	p.ln = nil
	p.mu.Unlock()
	if ln != nil {
		_ = ln.Close()
		<-done
	}
}

// Blackhole makes each new connection a dead end until Heal: accepted,
// but the target is not dialled and nothing is read or sent. Heal then
// dials the target and relays what the client wrote meanwhile.
func (p *Proxy) Blackhole() {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faultLocked()
	p.blackhole = true
}

// Stall freezes every connection, live and new, until Heal: the sockets
// stay open, and the bytes read are held (a write under way is cut short
// and its rest held), so the peers' buffers fill as with a frozen peer.
func (p *Proxy) Stall() {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faultLocked()
	p.stalled = true
	for l := range p.links {
		for _, w := range l.pumps {
			if w != nil && w.writing {
				w.cut = true
				_ = w.dst.SetWriteDeadline(time.Unix(1, 0))
			}
		}
	}
	for p.writing() {
		p.writes.Wait()
	}
}

// Latency delays each chunk the proxy reads from now on by d, both ways;
// 0 ends it. A round trip then takes at least 2d more.
func (p *Proxy) Latency(d time.Duration) {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.latency = max(d, 0)
}

// Heal ends every fault (Latency too): the proxy listens again, and the
// bytes held by Stall and Blackhole are delivered in order, ahead of new
// ones. Connections already killed stay dead.
func (p *Proxy) Heal() {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.mu.Lock()
	p.blackhole, p.stalled, p.latency = false, false, 0
	p.healLocked()
	listen := p.ln == nil && !p.closed
	p.mu.Unlock()
	if !listen {
		return
	}
	ln, err := net.Listen("tcp", p.addr)
	if err != nil { // the port was taken meanwhile: the proxy keeps refusing
		if p.t != nil {
			p.t.Errorf("redialtest: proxy: listen again on %s: %v", p.addr, err)
		}
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		_ = ln.Close()
		return
	}
	p.listenLocked(ln)
}

// faultLocked opens a new heal channel unless a fault already holds one.
func (p *Proxy) faultLocked() {
	select {
	case <-p.heal:
		p.heal = make(chan struct{})
	default:
	}
}

func (p *Proxy) healLocked() {
	select {
	case <-p.heal:
	default:
		close(p.heal)
	}
}

func (p *Proxy) writing() bool {
	for l := range p.links {
		for _, w := range l.pumps {
			if w != nil && w.writing {
				return true
			}
		}
	}
	return false
}
