// Package apicheck keeps a record of the module's exported API, as the Go
// project's api/ directory does for the standard library.
//
// Generate lists every public package of the module: what `go list ./...`
// finds under the module root for GOOS=linux, GOARCH=amd64 (no testdata,
// hidden or _ directories, nested modules, _test.go files or files for
// other systems), except main packages and those under a directory named
// internal, examples or vendor. Each package is read with go/types from
// the compiler's export data (`go list -export`, served by the build
// cache), and listed one line per exported item, in the style of
// api/go1.*.txt:
//
//	pkg backoff, const DefaultBase time.Duration = time.Second
//	pkg backoff, const Full Strategy = 1
//	pkg backoff, func New(Config) (*Backoff, error)
//	pkg backoff, method (*Backoff) Next() time.Duration
//	pkg backoff, type Config struct
//	pkg backoff, type Config struct, Base time.Duration
//	pkg backoff, var ErrInvalidOptions error
//	pkg supervisor, type Connector[C comparable] interface
//	pkg supervisor, type Connector[C comparable] interface, Connect(context.Context) (C, error)
//	pkg supervisor, method (*Supervisor[C]) Do(context.Context, func(context.Context, C) error) error
//
// A package is named by its directory relative to the module root
// ("health/prometheus"). Listed are: funcs; the methods of exported types,
// their own and those promoted from unexported embedded types, with the
// receiver's type parameters named as the type declares them; types, with
// their type parameters and, for a defined type that is neither a struct
// nor an interface, its underlying type; a struct's exported fields
// ("embedded T" for an embedded exported type) and those promoted from
// unexported embedded types; an interface's methods ("embedded I" for an
// embedded exported interface, "unexported methods" when it has some, and
// type-set elements such as ~int | ~string); consts, with their type unless
// untyped and their exact value (a time.Duration as "30 * time.Second");
// vars, with their type.
//
// Parameter and result names are dropped and packages are named by their
// package clause, so that renaming a parameter or an import changes
// nothing; a constant's value is the compiler's, so only a change of value
// shows.
//
// The listing of the whole module is the sorted lines of api/redial.txt at
// the module root. TestAPI fails when it is out of date, showing the lines
// removed (-) and added (+); after an intended change, accept the new API
// with
//
//	go test ./internal/testing/apicheck -update
package apicheck
