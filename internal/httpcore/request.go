package httpcore

import (
	"context"
	"net/http"
)

// RequestError is the error of a request that an adapter makes again on a
// connection it holds (sse resumes a paused stream), said as an attempt's
// on endpoint i is: a refusal (resp) a *HandshakeError, else err made safe.
func (c *Core) RequestError(ctx context.Context, i int, err error, resp *http.Response) error {
	return c.dialError(ctx, i, err, resp)
}
