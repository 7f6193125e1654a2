package websocket

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/coder/websocket"

	"github.com/redial-go/redial/internal/httpcore"
)

type library struct {
	*httpcore.Core
	subprotocols []string
	compression  websocket.CompressionMode
}

// Dial's own transport is closed before it returns: a failed attempt leaves nothing open.
func (l *library) Dial(ctx context.Context, a *httpcore.Attempt, st *httpcore.State) (*websocket.Conn, *http.Response, error) {
	dctx, cancel := context.WithCancel(ctx)
	tr := l.NewTransport(dctx)
	conn, resp, err := websocket.Dial(dctx, a.Raw, &websocket.DialOptions{
		HTTPClient:      &http.Client{Transport: tr},
		HTTPHeader:      a.Header,
		Subprotocols:    l.subprotocols,
		CompressionMode: l.compression,
	})
	cancel()
	tr.End()
	if err != nil {
		if resp == nil || resp.StatusCode == http.StatusSwitchingProtocols {
			resp = nil // a 101 that failed the checks is no refusal
		}
		return nil, resp, err
	}
	conn.SetReadLimit(l.ReadLimit)
	st.Lib = tr.Last() // the TCP connection under it, for a bounded close
	if l.WriteOnly {
		st.ReadForWriter(func() error {
			_, _, err := conn.Reader(context.Background())
			return err
		}, func() { _ = conn.CloseNow() })
	}
	return conn, nil, nil
}

func (l *library) Ping(ctx context.Context, conn *websocket.Conn, _ *httpcore.State) error {
	return conn.Ping(ctx)
}

func (l *library) Close(conn *websocket.Conn, st *httpcore.State) error {
	if !st.Polite() {
		return conn.CloseNow()
	}
	if raw, ok := st.Lib.(net.Conn); ok {
		_ = raw.SetDeadline(time.Now().Add(l.CloseTimeout))
	}
	if st.GoingAway() {
		return conn.Close(websocket.StatusGoingAway, "")
	}
	return conn.Close(websocket.StatusNormalClosure, "")
}

var reader = httpcore.Reader[*websocket.Conn, Message]{
	Read: func(ctx context.Context, conn *websocket.Conn, _ *httpcore.State) (Message, error) {
		typ, data, err := conn.Read(ctx)
		return Message{Type: typ, Data: data}, err
	},
	Drop:       func(conn *websocket.Conn) { _ = conn.CloseNow() },
	DropsOnCtx: true,
}
