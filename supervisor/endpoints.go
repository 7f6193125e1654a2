package supervisor

import (
	"context"
	"slices"

	"github.com/redial-go/redial/internal/opterr"
)

// endpoints are a Connector's endpoints, fixed at construction: a
// Connector without Endpoints is one, which Connect reaches.
type endpoints[C comparable] struct {
	to    Endpoints[C] // nil: Connect
	names []string     // shown in Status and logs; nil with one endpoint
	n     int
}

func endpointsOf[C comparable](c Connector[C]) (*endpoints[C], error) {
	e, ok := c.(Endpoints[C])
	if !ok {
		return &endpoints[C]{n: 1}, nil
	}
	names := slices.Clone(e.Endpoints())
	switch len(names) {
	case 0:
		return nil, opterr.New("supervisor", "Connector", nil, "Endpoints() returned none")
	case 1:
		names = nil // one endpoint is the Name's: a plain Connector's Status
	}
	return &endpoints[C]{to: e, names: names, n: max(len(names), 1)}, nil
}

// call is the callee's name of an attempt, for a panic's text.
func (e *endpoints[C]) call() string {
	if e.to != nil {
		return "ConnectTo"
	}
	return "Connect"
}

// connect makes one attempt on endpoint i.
func (e *endpoints[C]) connect(ctx context.Context, c Connector[C], i int) (C, error) {
	if e.to != nil {
		return e.to.ConnectTo(ctx, i)
	}
	return c.Connect(ctx)
}
