// Package footprint measures what depending on redial costs a user.
//
// TestTidyFootprint: for a scratch consumer module that imports one package
// of the library (through a replace directive pointing at this checkout),
// how many module zips `go mod tidy` downloads into an empty module cache.
// The library's go.mod must require only what its packages and their unit
// tests import, so a program that imports only backoff fetches at most 3
// zips (testify, its yaml dependency and goleak, which backoff's tests
// import), and one that imports only adapters/websocket at most 5. It needs
// the module proxy.
//
// TestSupervisingLinksNoHTTP and TestBinarySize: a program that only
// supervises links neither net/http nor html/template (`go list -deps`),
// and the programs in testdata, built with a plain `go build`, stay within
// their sizes beside the same programs written without redial.
//
//	go test ./footprint -v   (from e2e)
package footprint
