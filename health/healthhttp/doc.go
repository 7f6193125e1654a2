// Package healthhttp serves a health.Registry over HTTP: readiness and
// liveness probes for Kubernetes and a status page for operators.
//
//	mux.Handle("/readyz", healthhttp.ReadyHandler(&reg))
//	mux.Handle("/livez", healthhttp.LiveHandler(&reg))
//	mux.Handle("/status", healthhttp.StatusPage(&reg, healthhttp.StatusPageOptions{}))
//
// Readiness fails while any critical source is not Connected; liveness
// fails only when a critical source has Failed for good. Error text is
// shown only with ?verbose=1 (StatusPageOptions.Verbose), redacted.
package healthhttp
