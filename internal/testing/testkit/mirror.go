package testkit

import (
	"crypto/tls"
	"net"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// AssertMirrors guards an options struct O that repeats the fields of To
// (tcp.Options and rpc.Options repeat dial.Options; tcptls.Options has them
// by embedding tcp.Options): O has every field
// of To with the same name and type, and convert (the conversion to To)
// copies every one. A field added to To and not to O, or not copied,
// fails here.
func AssertMirrors[O, To any](t *testing.T, convert func(O) To) {
	t.Helper()
	dt, ot := reflect.TypeFor[To](), reflect.TypeFor[O]()
	var o O
	ov := reflect.ValueOf(&o).Elem()
	for f := range dt.Fields() {
		of, ok := ot.FieldByName(f.Name)
		require.True(t, ok, "%v lacks %s", ot, f.Name)
		require.Equal(t, f.Type, of.Type, "%v.%s", ot, f.Name)
		setNonZero(t, ov.FieldByIndex(of.Index), f.Name)
	}
	got := reflect.ValueOf(convert(o))
	for f := range dt.Fields() {
		want, have := ov.FieldByName(f.Name), got.FieldByName(f.Name)
		assert.False(t, have.IsZero(), "%s not copied", f.Name)
		assert.Equal(t, want.Interface(), have.Interface(), f.Name)
		if want.Kind() == reflect.Pointer {
			assert.Equal(t, want.Pointer(), have.Pointer(), "%s: the same value", f.Name)
		}
	}
}

func setNonZero(t *testing.T, v reflect.Value, name string) {
	t.Helper()
	switch v.Interface().(type) {
	case *tls.Config:
		v.Set(reflect.ValueOf(&tls.Config{ServerName: "x"}))
	case net.KeepAliveConfig:
		v.Set(reflect.ValueOf(net.KeepAliveConfig{Enable: true, Idle: time.Second}))
	case bool:
		v.SetBool(true)
	case time.Duration:
		v.SetInt(int64(time.Second))
	case *net.Resolver:
		v.Set(reflect.ValueOf(&net.Resolver{PreferGo: true}))
	default:
		t.Fatalf("field %s: a type this test does not know (%v); teach it", name, v.Type())
	}
}
