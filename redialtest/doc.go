// Package redialtest is the kit to prove a program's own reconnect logic,
// as redial's own tests prove its adapters (the models: testing/fstest,
// net/http/httptest).
//
// A Proxy sits in front of a real server on loopback and breaks the
// connections through it on command: Kill, Refuse, Blackhole, Stall,
// Latency, then Heal. Point the program at Proxy.Addr, break, and watch its
// health (Status, Subscribe, a health.Registry) go down and come back.
//
// Script is an in-memory supervisor.Connector for unit tests of a
// program's own logic inside a testing/synctest bubble: each attempt
// connects, fails, or hangs as the test says, and every attempt is
// recorded, so retry timing can be checked to the nanosecond of fake time.
package redialtest
