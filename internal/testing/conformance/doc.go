// Package conformance is what redial's adapters add to redialtest's
// conformance cases (redialtest.TestConnector, which every adapter's
// conformance_test.go calls): the protocol servers the cases need a
// protocol's knowledge for. An HTTPServer refuses with a status that is
// retried or given up on, whose status line and body echo the request,
// and closes a stream its protocol's way; StartWebSocket and
// WebSocketHarness serve and drive both WebSocket adapters; a TCPServer
// refuses for good in its protocol's way for tcp, tcptls and rpc. Kill,
// stall, refusal by the network and blackhole are the Proxy's.
package conformance
