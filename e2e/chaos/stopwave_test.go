package chaos

import (
	"math/rand/v2"
	"time"
)

// stopWaveHold is how long the stop wave is in force before the
// supervisors are cancelled: long enough for heartbeats, pings and calls
// to be caught on stalled or slow connections.
const stopWaveHold = 500 * time.Millisecond

// stopWave is the run's last faults, in force while every supervisor is
// cancelled, so that the stop rule holds on dead, stalled and slow
// connections too, not only on healthy ones: a fault on about one
// subject's proxy in three, of a kind the seed picks (no server or
// PostgreSQL restart: those end their connections at once anyway).
func stopWave(seed uint64, subjects int) []plannedFault {
	r := rand.New(rand.NewPCG(seed, 0x73746f70)) // "stop"
	kinds := []faultKind{faultResetPeer, faultTimeout, faultLatency, faultBandwidth, faultDisable}
	var out []plannedFault
	for i := range subjects {
		if r.IntN(3) != 0 {
			continue
		}
		f := plannedFault{kind: kinds[r.IntN(len(kinds))], target: i}
		switch f.kind {
		case faultTimeout:
			f.param = between(r, 100*time.Millisecond, 2*time.Second)
		case faultLatency:
			f.param = connectTimeout + between(r, 100*time.Millisecond, 600*time.Millisecond)
		}
		out = append(out, f)
	}
	return out
}

// applyAll applies faults at once, skipping a target that has one in
// force already (-chaos.break=keep-fault), and returns what removes them.
func (in *injector) applyAll(faults []plannedFault) []func() {
	var undos []func()
	for i, f := range faults {
		if active, _ := in.subjects[f.target].base().window.state(); active {
			in.skipped++
			continue
		}
		if undo := in.apply(f, 100000+i); undo != nil {
			undos = append(undos, undo)
		}
	}
	return undos
}
