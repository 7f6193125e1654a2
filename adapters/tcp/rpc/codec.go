package rpc

import (
	"sync/atomic"

	"github.com/cenkalti/rpc2"
)

// codec wraps rpc2's gob codec to learn two things rpc2 does not tell:
// why the read loop ended, and whether a request reached the socket.
type codec struct {
	rpc2.Codec
	readErr atomic.Pointer[error] // the first read error: the read loop is ending
}

// outgoing marks a request's arguments: sent is set when rpc2 hands them
// to the codec, so a call that failed with sent unset never left and may
// safely be made again on another connection.
type outgoing struct {
	args any
	sent atomic.Bool
}

func (c *codec) failed(err error) error {
	if err != nil {
		e := err // declared here, it is moved to the heap only on an error
		c.readErr.CompareAndSwap(nil, &e)
	}
	return err
}

func (c *codec) ReadHeader(req *rpc2.Request, resp *rpc2.Response) error {
	return c.failed(c.Codec.ReadHeader(req, resp))
}

func (c *codec) ReadRequestBody(body any) error {
	return c.failed(c.Codec.ReadRequestBody(body))
}

func (c *codec) ReadResponseBody(body any) error {
	return c.failed(c.Codec.ReadResponseBody(body))
}

func (c *codec) WriteRequest(r *rpc2.Request, body any) error {
	if o, ok := body.(*outgoing); ok {
		o.sent.Store(true)
		body = o.args
	}
	return c.Codec.WriteRequest(r, body)
}
