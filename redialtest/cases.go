package redialtest

import "time"

// tcase is one case: its name, what it needs, and its run.
type tcase struct {
	name string
	// crash: as a known failure, it crashes the test binary (a panic on a
	// goroutine of the supervisor's), so it runs in a child process.
	crash bool
	need  need
	run   func(e *env)
}

// need is what a case needs of the harness and its server.
type need struct{ hook, onConnect, secrets, refuser, closer bool }

// The cases, in the order TestConnector runs them; TestConnector's doc
// gives their contracts.
var cases = []tcase{
	{name: "bad-options", run: badOptions},
	{name: "reconnect-after-kill", run: reconnectAfterKill},
	{name: "refusal-retried", run: refusalRetried},
	{name: "stall", run: stall},
	{name: "drain", run: drained},
	{name: "blackhole", run: blackhole},
	{name: "no-leak", run: noLeak},
	{name: "order-stopped", run: orderStopped},
	{name: "order-failed", run: orderFailed},
	{name: "panic-classify", crash: true, run: panicIn("classify")},
	{name: "panic-logger", crash: true, run: panicIn("logger")},
	{name: "panic-connect", crash: true, need: need{hook: true}, run: panicIn("connect")},
	{name: "panic-on-connect", crash: true, need: need{onConnect: true}, run: panicIn("on-connect")},
	{name: "timeout-connect", need: need{hook: true}, run: timeoutIn("connect")},
	{name: "timeout-on-connect", need: need{onConnect: true}, run: timeoutIn("on-connect")},
	{name: "permanent-refusal", need: need{refuser: true}, run: permanentRefusal},
	{name: "secrets-refused", need: need{secrets: true, refuser: true}, run: secretsRefused},
	{name: "secrets-closed", need: need{secrets: true, closer: true}, run: secretsClosed},
	{name: "secrets-after-run", need: need{secrets: true}, run: secretsAfterRun},
	{name: "secrets-callbacks", need: need{secrets: true, hook: true}, run: secretsCallbacks},
}

// Cases returns the names of the conformance cases, in the order
// TestConnector runs them: the names its Skip and Known tables take.
func Cases() []string {
	names := make([]string, len(cases))
	for i, c := range cases {
		names[i] = c.name
	}
	return names
}

// lacks says what c needs that h, or srv when it is not nil, does not
// offer; "" when nothing.
func (c tcase) lacks(h Harness, srv Server) string {
	n := c.need
	switch {
	case n.hook && h.Hook == "":
		return "Harness.Hook is empty: no per-attempt hook of the program's calls Options.BeforeConnect"
	case n.onConnect && !h.OnConnect:
		return "Harness.OnConnect is false: the program's OnConnect does not call Options.OnConnect"
	case n.secrets && !h.Secrets:
		return "Harness.Secrets is false: New does not carry Options.Secrets"
	case srv == nil:
		return ""
	}
	if _, ok := srv.(Refuser); n.refuser && !ok {
		return "the server is no Refuser: it cannot refuse for good its protocol's way"
	}
	if _, ok := srv.(ConnCloser); n.closer && !ok {
		return "the server is no ConnCloser: it cannot end a connection its protocol's way"
	}
	return ""
}

// wait bounds every wait of a case for something that should happen at
// once; the machine may be loaded, and a case that fails waits this long.
// A var: the kit's own tests of failing cases shorten it.
var wait = 10 * time.Second
