// Package tcptest holds the helpers that the tests of adapters/tcp and
// adapters/tcp/rpc share: a restartable server on 127.0.0.1, connection
// handlers, a self-signed TLS pair, waiting on a health channel, the
// backoff bounds of the flapping tests, goroutine stacks, and the guard of
// the dial options' mirror. Only tests import it.
package tcptest
