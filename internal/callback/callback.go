// Package callback names the program's callback that panicked inside a Connector's method.
package callback

// Panic is a callback's panic, re-raised by Guard: the supervisor names In and panics again with Value.
type Panic struct {
	In    string
	Value any
}

// Guard calls f; a panic in it goes on as a *Panic naming in.
func Guard(in string, f func() error) error {
	defer func() {
		if v := recover(); v != nil {
			panic(&Panic{In: in, Value: v})
		}
	}()
	return f()
}
