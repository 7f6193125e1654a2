// Package health describes the health of supervised connections and serves
// it to readiness and liveness probes.
//
// A Status is a snapshot of one connection: its State, since when, the
// consecutive failed attempts, the last error (credentials redacted), when
// the next attempt is due and how many connections were established. A
// Registry gathers the Sources of a program; its ReadyHandler and
// LiveHandler answer Kubernetes probes:
//
//	readinessProbe:
//	  httpGet: {path: /readyz, port: 8080}
//	  periodSeconds: 5
//	livenessProbe:
//	  httpGet: {path: /livez, port: 8080}
//	  periodSeconds: 10
//
// Readiness fails while any critical source is not Connected; liveness fails
// only when a critical source has Failed for good. Error text is shown
// only with ?verbose=1, and then redacted.
//
// The package imports nothing of this module but its internal packages.
package health
