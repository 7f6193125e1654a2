package sse

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redial-go/redial/health"
)

// feed is the hand-over between the read (Watch) and the program's Events
// loop: a queue, in the streams' order, of the events and breaks read, the
// id the next request resumes from, and the id of the last event delivered.
//
// While the queue holds max events the read waits; once the program has
// held it back for hold since it last took the queue down to half, push
// fails and the stream is paused: a read held back longer could not tell
// a live server from a dead one whose last bytes the kernel still holds.
type feed struct {
	max  int
	hold time.Duration

	mu        sync.Mutex
	q         []item // a ring: head, n
	head, n   int
	events    int       // event items queued: what max bounds
	waiting   int       // items the loop will yield (events with data, breaks): the lag
	pos       string    // the id of the last event read: where the next request resumes
	lastID    string    // the id of the last event delivered
	heldSince time.Time // since when the queue has not been down to half after it was full; zero when it has
	want      int       // a waiter (push, waitRoom) is woken once events <= want; -1 for none

	sleeping atomic.Bool   // the loop waits on wake
	wake     chan struct{} // capacity 1
	room     chan struct{} // capacity 1
	timer    *time.Timer   // the read's waits; Watch's goroutine only
}

// item is an event a stream read, or a break (err).
type item struct {
	ev     Event
	err    error
	silent bool      // no data: not yielded, but its id is the position once taken
	at     time.Time // when the body read that brought it came
}

func newFeed(max int, hold time.Duration, lastID string) *feed {
	return &feed{max: max, hold: hold, pos: lastID, lastID: lastID, want: -1,
		wake: make(chan struct{}, 1), room: make(chan struct{}, 1)}
}

// position returns where the next request resumes.
func (f *feed) position() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pos
}

// last returns the id of the last event delivered.
func (f *feed) last() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lastID
}

// put appends it to the ring; under mu.
func (f *feed) put(it item) {
	if f.n == len(f.q) {
		q := make([]item, max(8, 2*len(f.q)))
		for i := range f.n {
			q[i] = f.q[(f.head+i)%len(f.q)]
		}
		f.q, f.head = q, 0
	}
	f.q[(f.head+f.n)%len(f.q)] = it
	f.n++
	if it.err != nil || !it.silent {
		f.waiting++
	}
}

// push queues it, an event a stream read, waiting while the queue is
// full. It reports false, queueing nothing, when done (the stream's end)
// comes first or the program has held the read back for hold: a pause.
func (f *feed) push(done <-chan struct{}, it item) bool {
	f.mu.Lock()
	for f.events >= f.max {
		left := f.holdLeft(time.Now())
		if left <= 0 || !f.await(done, f.max-1, left) {
			f.mu.Unlock()
			return false
		}
	}
	f.put(it)
	f.events++
	f.pos = it.ev.ID
	wake := f.n >= f.max/2+1
	f.mu.Unlock()
	if wake {
		f.flush()
	}
	return true
}

// holdLeft returns how much of the hold is left at now, the hold starting
// at now if it has not; under mu. On the monotonic clock: a wall-clock
// step neither pauses a stream at once nor holds its read for an hour.
func (f *feed) holdLeft(now time.Time) time.Duration {
	if f.heldSince.IsZero() {
		f.heldSince = now
	}
	return f.hold - now.Sub(f.heldSince)
}

// await waits, mu held, until events <= want, d passes or done ends; it
// reports whether it was woken for room, with mu held again.
func (f *feed) await(done <-chan struct{}, want int, d time.Duration) bool {
	f.want = want
	f.mu.Unlock()
	f.flush()
	if f.timer == nil {
		f.timer = time.NewTimer(d)
	} else {
		f.timer.Reset(d)
	}
	woken := false
	select {
	case <-f.room:
		woken = true
	case <-f.timer.C:
	case <-done:
	}
	f.timer.Stop()
	f.mu.Lock()
	f.want = -1
	select { // a wake-up that came after the timer
	case <-f.room:
	default:
	}
	return woken
}

// waitRoom waits, for a paused stream, until the program has taken the
// queue down to half, d passes or done ends.
func (f *feed) waitRoom(done <-chan struct{}, d time.Duration) {
	deadline := time.Now().Add(d)
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.events > f.max/2 {
		left := time.Until(deadline)
		if left <= 0 || !f.await(done, f.max/2, left) {
			return
		}
	}
}

// pushBreak owes err to the program, after what was read before it. A
// break right after another is one break: the first, unless that was a
// pause (ErrBehind), which says less.
func (f *feed) pushBreak(err error) {
	f.mu.Lock()
	var tail *item
	if f.n > 0 {
		tail = &f.q[(f.head+f.n-1)%len(f.q)]
	}
	switch {
	case tail == nil || tail.err == nil:
		f.put(item{err: err, at: time.Now()})
	case errors.Is(tail.err, ErrBehind):
		tail.err = err
	}
	f.mu.Unlock()
	f.flush()
}

// flush wakes the loop if it waits for what was queued. The read calls it
// before each body read and wait, so that the loop is woken once for what
// one read brought rather than once per event.
func (f *feed) flush() {
	if f.sleeping.Load() && f.sleeping.CompareAndSwap(true, false) {
		select {
		case f.wake <- struct{}{}:
		default:
		}
	}
}

// next takes the oldest item; ok is false when there is none, and then the
// loop is to wait on wake.
func (f *feed) next() (it item, ok bool) {
	f.mu.Lock()
	if f.n == 0 {
		f.sleeping.Store(true)
		f.mu.Unlock()
		return item{}, false
	}
	it = f.q[f.head]
	f.q[f.head] = item{}
	f.head = (f.head + 1) % len(f.q)
	f.n--
	if it.err != nil || !it.silent {
		f.waiting--
	}
	if it.err == nil {
		f.events--
		f.lastID = it.ev.ID
		if f.events <= f.max/2 {
			f.heldSince = time.Time{}
		}
		if f.events <= f.want {
			f.want = -1
			select {
			case f.room <- struct{}{}:
			default:
			}
		}
	}
	f.mu.Unlock()
	return it, true
}

// lag is the program's lag at now.
func (f *feed) lag(now time.Time) health.Lag {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := health.Lag{Waiting: f.waiting}
	for i := range f.n {
		if it := &f.q[(f.head+i)%len(f.q)]; it.err != nil || !it.silent {
			l.Oldest = max(now.Sub(it.at), 0)
			break
		}
	}
	return l
}
