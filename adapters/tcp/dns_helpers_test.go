package tcp_test

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// nxdomain starts a DNS server on 127.0.0.1 that answers every query
// "no such name" (NXDOMAIN) and returns a resolver that asks it, so that a
// test of an unresolvable host does not depend on the machine's DNS.
func nxdomain(t *testing.T) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	wg.Go(func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if errors.Is(err, net.ErrClosed) {
				return
			}
			if resp := nxResponse(buf[:n]); err == nil && resp != nil {
				_, _ = pc.WriteTo(resp, from)
			}
		}
	})
	t.Cleanup(func() { pc.Close(); wg.Wait() })
	addr := pc.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", addr)
	}}
}

// nxResponse turns a query into its NXDOMAIN answer: the header with QR,
// RA and RCODE 3 set and only the question kept.
func nxResponse(q []byte) []byte {
	if len(q) < 12 {
		return nil
	}
	i := 12
	for i < len(q) && q[i] != 0 { // the question's name, label by label
		i += int(q[i]) + 1
	}
	end := i + 1 + 4 // the root label, QTYPE, QCLASS
	if end > len(q) {
		return nil
	}
	r := append([]byte(nil), q[:end]...)
	r[2] = 0x80 | q[2]&0x01 // QR, RD copied
	r[3] = 0x80 | 3         // RA, RCODE NXDOMAIN
	r[4], r[5] = 0, 1       // QDCOUNT 1
	clear(r[6:12])          // no answers, authorities or additionals
	return r
}
