// Package apicheck keeps a record of the module's exported API, as the Go
// project's api/ directory does for the standard library.
//
// Generate parses (never type-checks, so a package that does not compile
// is listed all the same) every public package of the module: each
// directory under the module root except hidden ones (. or _) and those
// named internal, testdata, examples or vendor, nested modules (a
// directory with its own go.mod) and main packages. It reads the files
// that build for Context (GOOS=linux, GOARCH=amd64, plus files without a
// constraint), skips _test.go files, and lists one line per exported item,
// in the style of api/go1.*.txt:
//
//	pkg backoff, const DefaultBase = time.Second
//	pkg backoff, const Full Strategy = 1
//	pkg backoff, func New(Config) (*Backoff, error)
//	pkg backoff, method (*Backoff) Next() time.Duration
//	pkg backoff, type Config struct
//	pkg backoff, type Config struct, Base time.Duration
//	pkg backoff, var ErrInvalidConfig error
//	pkg supervisor, type Connector[C comparable] interface
//	pkg supervisor, type Connector[C comparable] interface, Connect(context.Context) (C, error)
//	pkg supervisor, method (*Supervisor[C]) Do(context.Context, func(context.Context, C) error) error
//
// A package is named by its directory relative to the module root
// ("health/prometheus"). Listed are: funcs; methods of exported types
// (never of unexported ones), with the receiver's type parameters named as
// the type declares them; types, with their type parameters; the exported
// fields of a struct ("embedded T" for an embedded exported type, and the
// exported fields and methods promoted from an embedded unexported type of
// the package); the methods of an interface ("embedded I" for an embedded
// exported interface, "unexported methods" when it has some, and type-set
// elements such as ~int | ~string); consts; vars.
//
// Parameter and result names are dropped, type parameters are listed one
// by one ([K comparable, V any]) and package qualifiers are normalized
// (the package's name, whatever a file imports it as), so that renaming or
// regrouping changes nothing. A const shows its type when one is written
// (or inherited in a const group) and its expression as written, with iota
// replaced by its value (the expression folded into one number when it is
// made of literals and iota only) and constants of internal packages
// replaced by their values, so a default moved into an internal package
// still shows. A var shows its type when it is written or can be told
// without type checking (a literal, T{...}, errors.New, a call of a func of
// the module, a var of an internal package, ...), else "= expr".
//
// The listing of the whole module is the sorted lines of api/redial.txt at
// the module root. TestAPI fails when it is out of date, showing the lines
// removed (-) and added (+); after an intended change, accept the new API
// with
//
//	go test ./internal/apicheck -update
package apicheck
