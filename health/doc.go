// Package health describes the health of supervised connections.
//
// A Status is a snapshot of one connection: its State, since when, the
// consecutive failed attempts, the last error (credentials redacted), when
// the next attempt is due and how many connections were established. A
// Registry gathers the Sources of a program and judges them: Ready while
// every critical source is Connected, Live until a critical source has
// Failed for good. Package healthhttp serves that judgement to Kubernetes
// probes and a status page.
//
// The package imports nothing of this module but its internal packages, and
// nothing of net/http: a program that only supervises does not link an
// HTTP server.
package health
