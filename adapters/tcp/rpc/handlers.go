package rpc

import (
	"fmt"
	"reflect"
	"unicode"
	"unicode/utf8"

	"github.com/cenkalti/rpc2"

	"github.com/redial-go/redial/internal/opterr"
)

var (
	typeOfClient = reflect.TypeFor[*rpc2.Client]()
	typeOfError  = reflect.TypeFor[error]()
)

// checkHandler applies rpc2.Client.Handle's rules, which panic, as errors:
// `rpc: Handlers["M"]: nil func`.
func checkHandler(name string, h any) error {
	fail := func(format string, args ...any) error {
		return opterr.New("rpc", fmt.Sprintf("Handlers[%q]", name), nil, format, args...)
	}
	if name == "" {
		return fail("empty method name")
	}
	v := reflect.ValueOf(h)
	if h == nil || v.Kind() != reflect.Func {
		return fail("%T is not a func(*rpc2.Client, Args, *Reply) error", h)
	}
	if v.IsNil() {
		return fail("nil func")
	}
	t := v.Type()
	switch {
	case t.NumIn() != 3 || t.NumOut() != 1:
		return fail("%v is not a func(*rpc2.Client, Args, *Reply) error", t)
	case t.In(0) != typeOfClient:
		return fail("first argument %v is not *rpc2.Client", t.In(0))
	case !exportedOrBuiltin(t.In(1)):
		return fail("argument type %v is not exported", t.In(1))
	case t.In(2).Kind() != reflect.Pointer:
		return fail("reply type %v is not a pointer", t.In(2))
	case !exportedOrBuiltin(t.In(2)):
		return fail("reply type %v is not exported", t.In(2))
	case t.Out(0) != typeOfError:
		return fail("returns %v, not error", t.Out(0))
	}
	return nil
}

func exportedOrBuiltin(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	r, _ := utf8.DecodeRuneInString(t.Name())
	return unicode.IsUpper(r) || t.PkgPath() == ""
}
