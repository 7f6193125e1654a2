package tcptls_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/adapters/tcp/tcptls"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

// A TLS link to a server whose certificate the program trusts (here a
// test HTTPS server's); Do runs one exchange on the live connection.
func Example() {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "hello")
	}))
	defer srv.Close()
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())

	s, err := tcptls.New(srv.Listener.Addr().String(), tcptls.Options{
		TLS: &tls.Config{RootCAs: roots}, // ServerName: the address's host
		Options: tcp.Options{
			Supervisor: supervisor.Settings{
				Name:    "greeter",
				Backoff: backoff.Config{Base: 10 * time.Millisecond, Cap: 100 * time.Millisecond},
			},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	go s.Run(ctx)

	err = s.Do(ctx, func(ctx context.Context, conn net.Conn) error {
		if _, err := io.WriteString(conn, "GET / HTTP/1.0\r\n\r\n"); err != nil {
			return err
		}
		status, err := bufio.NewReader(conn).ReadString('\n')
		fmt.Printf("read %q\n", status)
		return err
	})
	fmt.Println("do:", err)

	cancel()
	<-s.Done()
	fmt.Println(s.Err(), s.Status().State)
	// Output:
	// read "HTTP/1.0 200 OK\r\n"
	// do: <nil>
	// <nil> stopped
}
