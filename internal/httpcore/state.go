package httpcore

import (
	"sync"
	"sync/atomic"
)

// live maps every open connection of every adapter to its State, so that
// a message loop, which has only the supervisor and the connection, finds
// it. An entry lives from Connect to Close; a loop keeps the State it
// found for as long as it reads, so that what it yields after Close is
// masked all the same.
var live sync.Map // C -> *State

// State is what the core knows of one connection. The reader (a message
// loop or the WriteOnly reader) and the supervisor's goroutine (Watch,
// Close) share it.
type State struct {
	*Core
	Endpoint int // the index in the url and Replicas; -1 when unknown
	Lib      any // the library's own state of the connection

	broken atomic.Bool           // found dead: Close drops it at once
	why    atomic.Pointer[error] // why it was found dead, for the reader
	polite atomic.Bool           // Close is saying goodbye: the reader's failure is no failure

	readers   atomic.Int32  // 1 while a reader of the core owns the connection
	readEnded chan struct{} // closed when a reader of the core saw a read fail
	endOnce   sync.Once

	readDone chan struct{} // WriteOnly: closed when the adapter's reader ended
	readErr  error         // WriteOnly: why it ended; read after readDone
}

func newState(c *Core, endpoint int) *State {
	return &State{Core: c, Endpoint: endpoint, readEnded: make(chan struct{})}
}

// StateOf returns conn's State, nil when no adapter has it open.
func StateOf(conn any) *State {
	if st, ok := live.Load(conn); ok {
		return st.(*State)
	}
	return nil
}

func takeState(conn any) *State {
	if st, ok := live.LoadAndDelete(conn); ok {
		return st.(*State)
	}
	return nil
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

// Readers reports whether a reader of the core owns the connection.
func (st *State) Readers() bool { return st.readers.Load() > 0 }

// ReadEnded is closed when a reader of the core saw a read fail.
func (st *State) ReadEnded() <-chan struct{} { return st.readEnded }

func (st *State) endRead() { st.endOnce.Do(func() { close(st.readEnded) }) }

// ReadDone is closed when the WriteOnly reader ended (nil without one);
// ReadErr says why, after.
func (st *State) ReadDone() <-chan struct{} { return st.readDone }

func (st *State) ReadErr() error { return st.readErr }

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
// connection. Close returns only after it ended.
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
	}()
}
