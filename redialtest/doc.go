// Package redialtest is the kit to prove a program's own reconnect logic
// with the tools redial's own tests use (the models: testing/fstest,
// net/http/httptest).
//
// A Proxy sits in front of a real server on loopback and breaks the
// connections through it on command: Kill, Refuse, Blackhole, Stall,
// Latency, then Heal. In a test, NewProxy(t, addr) closes it at the end;
// point the program at Proxy.Addr, break, and watch its health (Status,
// Subscribe, a health.Registry) go down and come back.
//
// A Script is an in-memory supervisor.Connector for unit tests of a
// program's own logic: each attempt connects, fails or hangs as queued,
// and every Attempt is recorded. Inside a testing/synctest bubble time is
// fake: a test sleeps through minutes of backoff at once and checks each
// attempt's time to the nanosecond.
package redialtest
