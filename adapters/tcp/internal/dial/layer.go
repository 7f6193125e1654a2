package dial

import (
	"context"
	"net"
)

// A Layer makes the connection the program uses over raw, a new TCP
// connection to addr, within ctx: TLS's client handshake. It does not close
// raw when it fails; the Dialer does.
type Layer func(ctx context.Context, raw net.Conn, addr string) (net.Conn, error)

// layered is a connection made by a Layer over a TCP one (*tls.Conn).
type layered interface{ NetConn() net.Conn }
