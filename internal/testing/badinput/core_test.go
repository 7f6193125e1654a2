package badinput

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	redialprom "github.com/redial-go/redial/health/prometheus"
	"github.com/redial-go/redial/supervisor"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// bad is one call with bad input and the error it must give.
type bad struct {
	name string
	call func() error
	want string // the whole error text: `<package>: <Field> <value>: <what is wrong>`
}

// check runs every case: never a panic; one error, wrapping
// supervisor.ErrInvalidOptions, whose text is want and says its package
// prefix once.
func check(t *testing.T, cases []bad) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			assert.NotPanics(t, func() { err = c.call() })
			if !assert.Error(t, err) {
				return
			}
			t.Log(err)
			assert.EqualError(t, err, c.want)
			assert.ErrorIs(t, err, supervisor.ErrInvalidOptions)
			prefix, _, _ := strings.Cut(c.want, ": ")
			assert.Equal(t, 1, strings.Count(err.Error(), prefix+": "), "the prefix %q is said once", prefix)
		})
	}
}

const century = 100 * 365 * 24 * time.Hour

type nopConn struct{}

func (nopConn) Connect(context.Context) (*int, error) { return new(int), nil }
func (nopConn) Close(*int) error                      { return nil }

func newSupervisor(o supervisor.Options[*int]) error {
	_, err := supervisor.New[*int](nopConn{}, o)
	return err
}

func TestCoreBadInput(t *testing.T) {
	retry := func(o backoff.RetryOptions) func() error {
		return func() error {
			_, err := backoff.Retry(context.Background(), func(context.Context) (int, error) { return 0, nil }, o)
			return err
		}
	}
	newBackoff := func(c backoff.Config) func() error {
		return func() error { _, err := backoff.New(c); return err }
	}
	check(t, []bad{
		{"backoff negative Base", newBackoff(backoff.Config{Base: -time.Second}), "backoff: Base -1s: negative"},
		{"backoff negative Cap", newBackoff(backoff.Config{Cap: -1}), "backoff: Cap -1ns: negative"},
		{"backoff Cap of a century", newBackoff(backoff.Config{Cap: century}), "backoff: Cap 876000h0m0s: longer than 24h0m0s"},
		{"backoff Base larger than Cap", newBackoff(backoff.Config{Base: time.Hour, Cap: time.Minute}), "backoff: Cap 1m0s: shorter than Base 1h0m0s"},
		{"backoff Base larger than default Cap", newBackoff(backoff.Config{Base: time.Hour}), "backoff: Cap 1m0s: shorter than Base 1h0m0s"},
		{"backoff Base of a century", newBackoff(backoff.Config{Base: century}), "backoff: Base 876000h0m0s: longer than 24h0m0s"},
		{"backoff unknown strategy", newBackoff(backoff.Config{Strategy: 42}), "backoff: Strategy 42: unknown (want Decorrelated, Full, Equal or Exponential)"},
		{"budget zero ratio", func() error { _, err := backoff.NewBudget(0, 10); return err }, "backoff: ratio 0: not in (0, 1000]"},
		{"budget NaN ratio", func() error { _, err := backoff.NewBudget(math.NaN(), 10); return err }, "backoff: ratio NaN: not in (0, 1000]"},
		{"budget infinite max", func() error { _, err := backoff.NewBudget(0.1, math.Inf(1)); return err }, "backoff: max +Inf: not in [1, 1e9]"},
		{"retry negative Attempts", retry(backoff.RetryOptions{Attempts: -1}), "backoff: Attempts -1: negative"},
		{"retry negative MaxHint", retry(backoff.RetryOptions{MaxHint: -1}), "backoff: MaxHint -1ns: negative"},
		{"retry Cap of a century", retry(backoff.RetryOptions{Backoff: backoff.Config{Cap: century}}), "backoff: Cap 876000h0m0s: longer than 24h0m0s"},
		{"supervisor nil Connector", func() error { _, err := supervisor.New[*int](nil, supervisor.Options[*int]{}); return err }, "supervisor: Connector: nil"},
		{"supervisor negative StableAfter", func() error {
			return newSupervisor(supervisor.Options[*int]{Settings: supervisor.Settings{StableAfter: -1}})
		}, "supervisor: StableAfter -1ns: negative"},
		{"supervisor negative ConnectTimeout", func() error {
			return newSupervisor(supervisor.Options[*int]{Settings: supervisor.Settings{ConnectTimeout: -1}})
		}, "supervisor: ConnectTimeout -1ns: negative"},
		{"supervisor negative MaxAttempts", func() error {
			return newSupervisor(supervisor.Options[*int]{Settings: supervisor.Settings{MaxAttempts: -3}})
		}, "supervisor: MaxAttempts -3: negative"},
		{"supervisor negative MaxHint", func() error {
			return newSupervisor(supervisor.Options[*int]{Settings: supervisor.Settings{MaxHint: -time.Second}})
		}, "supervisor: MaxHint -1s: negative"},
		{"supervisor StableAfter of a century", func() error {
			return newSupervisor(supervisor.Options[*int]{Settings: supervisor.Settings{StableAfter: century}})
		}, "supervisor: StableAfter 876000h0m0s: longer than 24h0m0s"},
		{"supervisor FailoverSpread of two days", func() error {
			return newSupervisor(supervisor.Options[*int]{Settings: supervisor.Settings{FailoverSpread: 48 * time.Hour}})
		}, "supervisor: FailoverSpread 48h0m0s: longer than 24h0m0s"},
		{"supervisor negative EjectBase", func() error {
			return newSupervisor(supervisor.Options[*int]{Settings: supervisor.Settings{EjectBase: -time.Second}})
		}, "supervisor: EjectBase -1s: negative"},
		{"supervisor EjectCap of two days", func() error {
			return newSupervisor(supervisor.Options[*int]{Settings: supervisor.Settings{EjectCap: 48 * time.Hour}})
		}, "supervisor: EjectCap 48h0m0s: longer than 24h0m0s"},
		{"supervisor EjectCap under EjectBase", func() error {
			return newSupervisor(supervisor.Options[*int]{Settings: supervisor.Settings{EjectBase: time.Minute, EjectCap: time.Second}})
		}, "supervisor: EjectCap 1s: shorter than EjectBase 1m0s"},
		{"supervisor Cap of a century", func() error {
			return newSupervisor(supervisor.Options[*int]{Settings: supervisor.Settings{Backoff: backoff.Config{Cap: century}}})
		}, "supervisor: Backoff.Cap 876000h0m0s: longer than 24h0m0s"},
		{"supervisor unknown strategy", func() error {
			return newSupervisor(supervisor.Options[*int]{Settings: supervisor.Settings{Backoff: backoff.Config{Strategy: -7}}})
		}, "supervisor: Backoff.Strategy -7: unknown (want Decorrelated, Full, Equal or Exponential)"},
		{"prometheus nil registry", func() error { _, err := redialprom.New(nil); return err }, "prometheus: registry: nil"},
	})
}

// A state name is data, not an option: a plain error that names it.
func TestUnknownStateName(t *testing.T) {
	var s health.State
	assert.EqualError(t, s.UnmarshalText([]byte("up")), `health: unknown state "up"`)
}
