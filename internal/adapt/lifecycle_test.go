package adapt_test

import (
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/adapt"
)

// An adapter's type that embeds a Lifecycle is a health.EndpointSource,
// as the Supervisor is: the Registry reads its endpoints' health.
var _ health.EndpointSource = (*adapt.Lifecycle[*int])(nil)
