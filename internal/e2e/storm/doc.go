// Package storm measures a reconnect storm over real loopback TCP: many
// clients connected to one server, the server restarted, and the time until
// all are back and the peak accept rate, for redial's supervisor and for a
// plain reconnect loop without jitter. It holds a benchmark and the server
// it runs against.
package storm
