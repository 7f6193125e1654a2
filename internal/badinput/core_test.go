package badinput

import (
	"context"
	"math"
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

// bad is one call with bad input and the words its error must contain.
type bad struct {
	name string
	call func() error
	want string // the field the error names
}

// check runs every case: an error naming the field, never a panic.
func check(t *testing.T, cases []bad) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			assert.NotPanics(t, func() { err = c.call() })
			if assert.Error(t, err) {
				assert.Contains(t, err.Error(), c.want)
				t.Log(err)
			}
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
	check(t, []bad{
		{"backoff negative Base", func() error { _, err := backoff.New(backoff.Config{Base: -time.Second}); return err }, "Base"},
		{"backoff negative Cap", func() error { _, err := backoff.New(backoff.Config{Cap: -1}); return err }, "Cap"},
		{"backoff Cap of a century", func() error { _, err := backoff.New(backoff.Config{Cap: century}); return err }, "Cap"},
		{"backoff Base larger than Cap", func() error {
			_, err := backoff.New(backoff.Config{Base: time.Hour, Cap: time.Minute})
			return err
		}, "Cap 1m0s is shorter than Base 1h0m0s"},
		{"backoff Base larger than default Cap", func() error { _, err := backoff.New(backoff.Config{Base: century}); return err }, "Base"},
		{"backoff unknown strategy", func() error { _, err := backoff.New(backoff.Config{Strategy: 42}); return err }, "Strategy"},
		{"budget zero ratio", func() error { _, err := backoff.NewBudget(0, 10); return err }, "ratio"},
		{"budget NaN ratio", func() error { _, err := backoff.NewBudget(math.NaN(), 10); return err }, "ratio"},
		{"budget infinite max", func() error { _, err := backoff.NewBudget(0.1, math.Inf(1)); return err }, "max"},
		{"retry negative MaxAttempts", func() error {
			_, err := backoff.Retry(context.Background(), func(context.Context) (int, error) { return 0, nil }, backoff.RetryOptions{MaxAttempts: -1})
			return err
		}, "MaxAttempts"},
		{"retry negative MaxHint", func() error {
			_, err := backoff.Retry(context.Background(), func(context.Context) (int, error) { return 0, nil }, backoff.RetryOptions{MaxHint: -1})
			return err
		}, "MaxHint"},
		{"retry Cap of a century", func() error {
			_, err := backoff.Retry(context.Background(), func(context.Context) (int, error) { return 0, nil }, backoff.RetryOptions{Backoff: backoff.Config{Cap: century}})
			return err
		}, "Cap"},
		{"supervisor nil Connector", func() error { _, err := supervisor.New[*int](nil, supervisor.Options[*int]{}); return err }, "Connector"},
		{"supervisor negative StableAfter", func() error { return newSupervisor(supervisor.Options[*int]{StableAfter: -1}) }, "StableAfter"},
		{"supervisor negative ConnectTimeout", func() error { return newSupervisor(supervisor.Options[*int]{ConnectTimeout: -1}) }, "ConnectTimeout"},
		{"supervisor negative MaxAttempts", func() error { return newSupervisor(supervisor.Options[*int]{MaxAttempts: -3}) }, "MaxAttempts"},
		{"supervisor negative MaxHint", func() error { return newSupervisor(supervisor.Options[*int]{MaxHint: -time.Second}) }, "MaxHint"},
		{"supervisor Cap of a century", func() error {
			return newSupervisor(supervisor.Options[*int]{Backoff: backoff.Config{Cap: century}})
		}, "Cap"},
		{"supervisor unknown strategy", func() error {
			return newSupervisor(supervisor.Options[*int]{Backoff: backoff.Config{Strategy: -7}})
		}, "Strategy"},
		{"policy negative StableAfter", func() error {
			_, err := supervisor.NewPolicy(supervisor.PolicyConfig{StableAfter: -1})
			return err
		}, "StableAfter"},
		{"prometheus nil registry", func() error { _, err := redialprom.New(nil); return err }, "Registry"},
		{"health unknown state name", func() error { var s health.State; return s.UnmarshalText([]byte("up")) }, "state"},
	})
}
