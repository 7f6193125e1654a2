package adapt_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/adapt"
	"github.com/redial-go/redial/supervisor"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestChain(t *testing.T) {
	base := errors.New("401")
	adapter := func(err error) error { return backoff.Permanent(err) }
	program := func(err error) error { return fmt.Errorf("feed: %w", err) }
	c := adapt.Chain(adapter, nil, func(error) error { return nil }, program)
	got := c(base)
	assert.True(t, backoff.IsPermanent(got), "the program's step kept the adapter's class")
	assert.ErrorIs(t, got, base)
	assert.Equal(t, "feed: 401", got.Error())
	assert.NoError(t, c(nil))
}

// TestSettingsMirrorOptions guards the flat layout: every field of
// Settings is a field of Options[C] with the same type, and Settings()
// and adapt.Options carry every one of them both ways. A field added to
// one and not the other, or not copied, fails here.
func TestSettingsMirrorOptions(t *testing.T) {
	st := reflect.TypeFor[supervisor.Settings]()
	ot := reflect.TypeFor[supervisor.Options[int]]()
	require.Equal(t, st.NumField()+1, ot.NumField(), "Options[C] is Settings plus OnConnect")
	for f := range st.Fields() {
		of, ok := ot.FieldByName(f.Name)
		require.True(t, ok, "Options[C] lacks %s", f.Name)
		assert.Equal(t, f.Type, of.Type, f.Name)
	}

	// Every field set to a non-zero value survives both conversions.
	s := supervisor.Settings{}
	sv := reflect.ValueOf(&s).Elem()
	for i := range sv.NumField() {
		setNonZero(t, sv.Field(i), st.Field(i).Name)
	}
	onConnect := func(context.Context, int) error { return nil }
	o := adapt.Options(s, onConnect)
	back := o.Settings()
	bv := reflect.ValueOf(back)
	for i := range sv.NumField() {
		name := st.Field(i).Name
		assert.False(t, bv.Field(i).IsZero(), "%s lost on the way", name)
		if sv.Field(i).Kind() != reflect.Func {
			assert.Equal(t, sv.Field(i).Interface(), bv.Field(i).Interface(), name)
		}
	}
	assert.NotNil(t, o.OnConnect)
}

func setNonZero(t *testing.T, v reflect.Value, name string) {
	switch v.Interface().(type) {
	case string:
		v.SetString("x")
	case backoff.Config:
		v.Set(reflect.ValueOf(backoff.Config{Base: time.Millisecond}))
	case time.Duration:
		v.SetInt(int64(time.Second))
	case int:
		v.SetInt(3)
	case *backoff.Budget:
		b, err := backoff.NewBudget(0.1, 10)
		require.NoError(t, err)
		v.Set(reflect.ValueOf(b))
	case func(error) error:
		v.Set(reflect.ValueOf(func(err error) error { return err }))
	case *slog.Logger:
		v.Set(reflect.ValueOf(slog.Default()))
	default:
		t.Fatalf("Settings.%s: a field of type %v this test does not know; teach it", name, v.Type())
	}
}

type nopConnector struct{}

func (nopConnector) Connect(context.Context) (int, error) { return 1, nil }
func (nopConnector) Close(int) error                      { return nil }

func TestNewSaysTheAdaptersPrefix(t *testing.T) {
	sp := adapt.Spec{Pkg: "feed", Name: "ws://h/x"}
	_, err := adapt.New(sp, nopConnector{}, supervisor.Options[int]{ConnectTimeout: -time.Second})
	assert.EqualError(t, err, "feed: Supervisor.ConnectTimeout -1s: negative")
	assert.ErrorIs(t, err, supervisor.ErrInvalidOptions)

	_, err = adapt.New(sp, nopConnector{}, supervisor.Options[int]{Backoff: backoff.Config{Cap: 48 * time.Hour}})
	assert.EqualError(t, err, "feed: Supervisor.Backoff.Cap 48h0m0s: longer than 24h0m0s")
	assert.ErrorIs(t, err, backoff.ErrInvalidConfig)

	s, err := adapt.New(sp, nopConnector{}, supervisor.Options[int]{})
	require.NoError(t, err)
	assert.Equal(t, "ws://h/x", s.Name(), "the default Name is the target")
	s, err = adapt.New(sp, nopConnector{}, supervisor.Options[int]{Name: "mine"})
	require.NoError(t, err)
	assert.Equal(t, "mine", s.Name())
}
