// Package storm measures reconnect storms and idle connections over real
// loopback sockets:
//   - BenchmarkReconnectStorm: TCP clients of redial's supervisor and of a
//     plain loop without jitter, their server restarted;
//   - BenchmarkWebSocketStorm: the seed's scenario, WebSocket clients of
//     four strategies (redial's default supervisor, a no-jitter loop,
//     cenkalti/backoff/v5's Retry, gRPC's connection backoff) against a
//     server in another process that goes away and then accepts K new
//     connections a second, the rest answered 503 (wsserver_test.go);
//     its calibrate step measures the handshakes a second this machine
//     answers, which examples/herd takes as -service;
//   - BenchmarkWebSocketAdmit: 2,000 redial WebSocket clients, the server
//     gone 5 s and then taking 200 a second with package admit's Planner,
//     with a limit that answers 503 without a hint, and with no admission
//     (TestWebSocketAdmit runs the planner's at 200 clients, for CI);
//   - BenchmarkWebSocketMemory: supervised WebSocket connections against
//     raw coder/websocket ones, memory per connection;
//   - BenchmarkIdleTCPSupervisors: what a supervisor adds to an idle
//     loopback TCP connection.
//
// They are benchmarks, run with -benchtime=1x by e2e's
// benchreport, which writes their figures into BENCHMARKS.md; the test
// binary of this package is also the WebSocket storm's server process.
package storm
