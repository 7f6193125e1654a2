// Package prometheus exports a health.Registry as Prometheus metrics
// (github.com/prometheus/client_golang), read from the sources at scrape
// time, one series per source name: redial_up, redial_state (and a state
// label), redial_connects_total, redial_connect_failures_total,
// redial_next_attempt_seconds, redial_connection_uptime_seconds,
// redial_reconnects_last_minute, redial_longest_outage_seconds,
// redial_lag_waiting and redial_lag_oldest_seconds; their help texts say
// what each means.
package prometheus
