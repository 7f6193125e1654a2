// Package testkit holds the helpers that tests across the module share:
// a restartable TCP server on 127.0.0.1 and its connection handlers, a
// restartable HTTP server for WebSocket tests over any server library, a
// self-signed TLS pair, a started client with its reading loop, waiting on
// a health channel and recording the states it shows, the bounds of the
// backoff tests, the checks both WebSocket adapters share (compression,
// read limits, heartbeat, stop), goroutine stacks, a goroutine-safe buffer
// for logs and program output, and the guard of an options struct that
// mirrors another. Only tests import it.
package testkit
