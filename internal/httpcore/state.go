package httpcore

import (
	"sync"
	"sync/atomic"
)

// live maps every open connection of every adapter to its State, so that
// a message loop, which has only the supervisor and the connection, finds
// it. An entry lives from Connect to Close; a loop keeps the State it
// found for as long as it reads, so that what it yields after Close is
// masked all the same. A map under a lock: a sync.Map's entry and trie
// nodes took 100 B per connection, a slot here 55 (BENCHMARKS.md).
var live struct {
	sync.RWMutex
	m map[any]*State
}

func keep(conn any, st *State) {
	live.Lock()
	if live.m == nil {
		live.m = make(map[any]*State)
	}
	live.m[conn] = st
	live.Unlock()
}

// State is what the core knows of one connection. The reader (a message
// loop or the WriteOnly reader), the supervisor (Watch, Close) and the
// heartbeat share it.
type State struct {
	*Core
	Endpoint int // the index in the url and Replicas; -1 when unknown
	Lib      any // the library's own state of the connection

	broken atomic.Bool           // found dead: Close drops it at once
	why    atomic.Pointer[error] // why it was found dead, for the reader
	polite atomic.Bool           // Close is saying goodbye: the reader's failure is no failure
	away   atomic.Bool           // the goodbye is "going away" (1001): the supervisor drains

	readers atomic.Int32 // 1 while a reader of the core owns the connection

	mu        sync.Mutex
	ended     bool          // a reader of the core saw a read fail
	readEnded chan struct{} // closed when ended; made only when someone waits
	gone      bool          // the WriteOnly reader ended
	beat      ender         // the heartbeat, told when the WriteOnly reader ends

	readDone chan struct{} // WriteOnly: closed when the adapter's reader ended
	readErr  error         // WriteOnly: why it ended; read after readDone
}

// ender is the heartbeat as the WriteOnly reader sees it.
type ender interface{ readerEnded() }

func newState(c *Core, endpoint int) *State {
	return &State{Core: c, Endpoint: endpoint}
}

// StateOf returns conn's State, nil when no adapter has it open.
func StateOf(conn any) *State {
	live.RLock()
	defer live.RUnlock()
	return live.m[conn]
}

func takeState(conn any) *State {
	live.Lock()
	defer live.Unlock()
	st := live.m[conn]
	delete(live.m, conn)
	if len(live.m) == 0 {
		live.m = nil // a map never shrinks: let the largest go
	}
	return st
}

// Fail marks the connection broken, for why (nil: no reason of its own):
// Close drops it, and a reader whose read fails because of it yields why.
func (st *State) Fail(why error) {
	if why != nil {
		st.why.Store(&why)
	}
	st.broken.Store(true)
}

// Polite reports whether Close says goodbye.
func (st *State) Polite() bool { return st.polite.Load() }

// GoingAway reports whether the goodbye is 1001, going away: the program
// drains (supervisor.Drain) before it shuts down.
func (st *State) GoingAway() bool { return st.away.Load() }

// Readers reports whether a reader of the core owns the connection.
func (st *State) Readers() bool { return st.readers.Load() > 0 }

// ReadEnded is closed when a reader of the core saw a read fail.
func (st *State) ReadEnded() <-chan struct{} {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.readEnded == nil {
		st.readEnded = make(chan struct{})
		if st.ended {
			close(st.readEnded)
		}
	}
	return st.readEnded
}

func (st *State) endRead() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.ended {
		st.ended = true
		if st.readEnded != nil {
			close(st.readEnded)
		}
	}
}

// ReadDone is closed when the WriteOnly reader ended (nil without one);
// ReadErr says why, after.
func (st *State) ReadDone() <-chan struct{} { return st.readDone }

func (st *State) ReadErr() error { return st.readErr }

// watch makes b the heartbeat the WriteOnly reader tells when it ends,
// and reports whether it has ended already.
func (st *State) watch(b ender) (gone bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.beat = b
	return st.gone
}

// readerGone reports whether the WriteOnly reader has ended.
func (st *State) readerGone() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.gone
}

// failure says why a read failed: the reason the connection was found
// dead for, if any, else err.
func (st *State) failure(err error) error {
	if why := st.why.Load(); why != nil {
		return *why
	}
	return err
}

// ReadForWriter starts the one reader goroutine of a WriteOnly connection:
// next waits for the next data message, handling control frames (pongs,
// close frames) meanwhile; a message is unexpected and drop ends the
// connection. When it ends, the heartbeat reports its reason (a close
// frame's status reaches Classify). Close returns only after it ended.
func (st *State) ReadForWriter(next func() error, drop func()) {
	st.readers.Store(1)
	st.readDone = make(chan struct{})
	go func() {
		defer close(st.readDone)
		err := next()
		if err == nil {
			err = ErrUnexpectedData
			drop()
		}
		st.readErr = st.failure(err)
		st.endRead()
		st.mu.Lock()
		st.gone = true
		b := st.beat
		st.mu.Unlock()
		if b != nil {
			b.readerEnded()
		}
	}()
}
