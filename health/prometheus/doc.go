// Package prometheus exports a health.Registry as Prometheus metrics
// (github.com/prometheus/client_golang), one series per source and name:
//
//	redial_up{name}                              1 when Connected, else 0
//	redial_state{name,state}                     1 for the current state, 0 for the others
//	redial_connects_total{name}                  connections established
//	redial_connect_failures_total{name}          failed attempts
//	redial_next_attempt_seconds{name}            seconds until the next attempt; 0 outside backoff
//	redial_connection_uptime_seconds{name}       seconds the connection has been up; 0 when down
//	redial_reconnects_last_minute{name}          connections re-established in the last minute
//	redial_longest_outage_seconds{name}          longest outage so far, the current one included
//
// The values are read from the sources' Status at scrape time; nothing is
// stored between scrapes.
package prometheus
