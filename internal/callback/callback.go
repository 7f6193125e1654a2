// Package callback lets a Connector say which of the program's callbacks
// panicked inside one of its own methods, so that the supervisor's error
// says "BeforeConnect panicked" rather than "Connect panicked".
package callback

// Panic is the panic of the program's callback In, re-raised by Guard:
// the supervisor names In and panics again with Value, the callback's own.
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
