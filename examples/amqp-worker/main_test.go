package main

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/internal/testing/rabbittest"
	"github.com/redial-go/redial/internal/testing/testkit"
)

var rabbit = rabbittest.NewShared(rabbittest.Options{})

func TestMain(m *testing.M) { goleak.VerifyTestMain(rabbittest.Main(m, rabbit)) }

// TestWorkAcrossARestart runs the worker with 20 jobs, kills the broker
// (SIGKILL) once it has done some and starts it again: the worker says it
// lost the broker and reconnected, and every job is done.
func TestWorkAcrossARestart(t *testing.T) {
	b := rabbit.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out testkit.Buffer
	done := make(chan error, 1)
	jobs := "jobs-" + t.Name()
	go func() {
		done <- work(ctx, &out, config{url: b.URL(), jobs: jobs, results: "results-" + t.Name(), produce: 20})
	}()
	out.WaitFor(t, "published 20 jobs, 20 confirmed", time.Minute)
	out.WaitFor(t, "JOB 3", time.Minute)
	b.Sync(t) // a crash loses queues declared in the last seconds
	b.Kill(t)
	out.WaitFor(t, "lost amqp://xxxxx@"+b.Addr()+"/, reconnecting", time.Minute)
	b.Start(t)
	out.WaitFor(t, "(#2)", time.Minute)
	for i := 1; i <= 20; i++ {
		out.WaitFor(t, "JOB "+strconv.Itoa(i)+"\n", time.Minute)
	}
	cancel()
	assert.NoError(t, <-done)
	text := out.String()
	t.Log(text)
	assert.NotContains(t, text, b.Password())
	assert.NotContains(t, text, rabbittest.User)
}

// TestExitsWhenTheBrokerRefuses points the command at a vhost that does
// not exist: the broker refuses it for good (530 NOT_ALLOWED), and the
// command exits at once, non-zero, with one line that says why.
func TestExitsWhenTheBrokerRefuses(t *testing.T) {
	b := rabbit.Get(t)
	out := testkit.ExitsForGood(t, run, "vhost missing not found", "-url", b.URLAt(b.Addr(), rabbittest.User, b.Password(), "missing"))
	assert.NotContains(t, out, b.Password())
	assert.NotContains(t, out, "retrying", "a refusal for good is not retried")
}

// TestSaysItRetries points the command at an address where nothing
// listens: it says so once per attempt, the address masked.
func TestSaysItRetries(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var stdout, stderr testkit.Buffer
	addr := testkit.ClosedAddr(t)
	code := run(ctx, []string{"-url", "amqp://app:s3cr3t@" + addr + "/"}, &stdout, &stderr)
	assert.Zero(t, code, "ctx ended: %s", stderr.String())
	text := stdout.String()
	t.Log(text)
	lines := strings.Count(text, "unreachable, retrying in")
	assert.GreaterOrEqual(t, lines, 2)
	assert.Equal(t, lines, strings.Count(text, "connection refused"), "one line per attempt")
	assert.Contains(t, text, "amqp://xxxxx@"+addr+"/ unreachable")
	assert.NotContains(t, text, "s3cr3t")
}
