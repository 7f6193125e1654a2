package httpcore

import (
	"context"
	"crypto/tls"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/redial-go/redial/internal/opterr"
)

// Defaults of Config, which the adapters export under the same names.
const (
	DefaultReadLimit    = 1 << 20 // 1 MiB per message or event
	DefaultPingInterval = 10 * time.Second
	DefaultPingTimeout  = 5 * time.Second
	DefaultCloseHint    = 5 * time.Second
	DefaultCloseTimeout = time.Second
	DefaultIdleTimeout  = 15 * time.Second
)

// Spec is what an adapter's library is: fixed for the adapter.
type Spec struct {
	Pkg     string   // the package: errors' prefix
	Schemes []string // of the url and Replicas
	Verb    string   // an attempt in errors: "handshake", "get"
	Want    string   // what a 200 answer was to be: "a WebSocket upgrade"
	Item    string   // what ReadLimit bounds, with its article: "a message", "an event"
	// Reserved are the request headers the library sets itself, canonical:
	// refused in Header and from BeforeConnect.
	Reserved []string
	Codes    *Codes // the close codes of the protocol; nil when it has none
	TooBig   error  // the library's error for an item over ReadLimit
	Keep     []error
}

// WebSocketSpec is the Spec of a WebSocket library named pkg. Reserved are
// the headers a handshake sets itself: Subprotocols set
// Sec-WebSocket-Protocol, the compression option Sec-WebSocket-Extensions.
func WebSocketSpec(pkg string, codes *Codes, tooBig error, keep ...error) Spec {
	return Spec{Pkg: pkg, Schemes: []string{"ws", "wss"}, Verb: "handshake", Want: "a WebSocket upgrade", Item: "a message",
		Reserved: []string{"Connection", "Sec-Websocket-Accept", "Sec-Websocket-Extensions", "Sec-Websocket-Key",
			"Sec-Websocket-Protocol", "Sec-Websocket-Version", "Upgrade"},
		Codes: codes, TooBig: tooBig, Keep: keep}
}

// Codes reads and rebuilds the close frames of the library's errors.
type Codes struct {
	Of  func(err error) (code int, reason string, ok bool)
	New func(code int, reason string) error
}

// Config is the adapter's options that the core serves. Durations the
// adapter has not are zero and unused.
type Config struct {
	URL           string
	Replicas      []string
	PublicQuery   []string
	Header        http.Header
	BeforeConnect func(ctx context.Context, u *url.URL, header http.Header) error
	TLS           *tls.Config
	ReadLimit     int64
	PingInterval  time.Duration
	PingTimeout   time.Duration
	CloseTimeout  time.Duration
	CloseHint     time.Duration
	IdleTimeout   time.Duration
	WriteOnly     bool
}

// validate checks every field but the endpoints, fills in the defaults
// and copies what the program could change afterwards.
func (c *Config) validate(sp *Spec) error {
	if c.ReadLimit < 0 {
		return opterr.New(sp.Pkg, "ReadLimit", c.ReadLimit, "negative")
	}
	if err := checkHeader(sp, c.Header); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		d    *time.Duration
		def  time.Duration
	}{
		{"PingInterval", &c.PingInterval, DefaultPingInterval}, {"PingTimeout", &c.PingTimeout, DefaultPingTimeout},
		{"CloseTimeout", &c.CloseTimeout, DefaultCloseTimeout}, {"CloseHint", &c.CloseHint, DefaultCloseHint},
		{"IdleTimeout", &c.IdleTimeout, DefaultIdleTimeout},
	} {
		if err := opterr.Duration(sp.Pkg, f.name, *f.d); err != nil {
			return err
		}
		if *f.d == 0 {
			*f.d = f.def
		}
	}
	if c.ReadLimit == 0 {
		c.ReadLimit = DefaultReadLimit
	}
	c.Header = c.Header.Clone()
	c.PublicQuery = slices.Clone(c.PublicQuery)
	c.Replicas = slices.Clone(c.Replicas)
	if c.TLS != nil {
		c.TLS = c.TLS.Clone()
	}
	return nil
}

// checkHeader refuses the headers the library sets itself and those
// net/http would refuse to send at every attempt: the first in order,
// always the same. A value is a secret: only its name is shown.
func checkHeader(sp *Spec, h http.Header) error {
	for _, k := range slices.Sorted(maps.Keys(h)) {
		ck := http.CanonicalHeaderKey(k)
		switch {
		case slices.Contains(sp.Reserved, ck):
			return opterr.New(sp.Pkg, "Header", ck, "set by the handshake")
		case !validHeaderName(k):
			return opterr.New(sp.Pkg, "Header", k, "not a valid header name")
		case slices.ContainsFunc(h[k], invalidHeaderValue):
			return opterr.New(sp.Pkg, "Header", ck, "a value holds %s", refusedInValue)
		}
	}
	return nil
}
