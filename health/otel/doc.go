// Package otel exports a health.Registry as OpenTelemetry metrics
// (go.opentelemetry.io/otel/metric), one point per source, with the
// source's name as the attribute redial.name:
//
//	redial.connection.up              gauge    1             1 when Connected, else 0
//	redial.connection.state           gauge    1             1 for the current redial.state, 0 for the others
//	redial.connection.connects        counter  {connection}  connections established
//	redial.connection.failures        counter  {attempt}     failed attempts
//	redial.connection.next_attempt    gauge    s             seconds until the next attempt; 0 outside backoff
//	redial.connection.uptime          gauge    s             seconds the connection has been up; 0 when down
//	redial.connection.reconnects      gauge    {connection}  connections re-established in the last minute
//	redial.connection.longest_outage  gauge    s             longest outage so far, the current one included
//	redial.connection.lag.waiting     gauge    {item}        items a LagSource holds for the program
//	redial.connection.lag.oldest      gauge    s             how long the oldest of them has waited
//
// They mean what health/prometheus's redial_* series mean. Every instrument
// is observable: one callback reads the Registry's Entries once per
// collection, so nothing runs and nothing is stored between collections.
// The package imports only the OpenTelemetry API; the program brings the
// SDK and its exporter, and passes a Meter such as
// provider.Meter("github.com/redial-go/redial/health/otel").
package otel
