package redialtest_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	"github.com/redial-go/redial/redialtest"
)

// A Proxy in front of an echo server: Kill resets the live connection,
// Refuse refuses new ones, Heal relays again on the same address. In a
// test, NewProxy(t, addr) closes the proxy at the test's end. The
// adapters' Examples (adapters/websocket) prove a feed through one.
func ExampleProxy() {
	echo, _ := net.Listen("tcp", "127.0.0.1:0")
	defer echo.Close()
	go func() {
		for c, err := echo.Accept(); err == nil; c, err = echo.Accept() {
			go func() { _, _ = io.Copy(c, c); _ = c.Close() }()
		}
	}()
	proxy, _ := redialtest.StartProxy(echo.Addr().String())
	defer proxy.Close()

	c, _ := net.Dial("tcp", proxy.Addr())
	defer c.Close()
	fmt.Fprintln(c, "hello")
	line, _ := bufio.NewReader(c).ReadString('\n')
	fmt.Print("echoed: ", line)
	proxy.Kill()
	_, err := c.Read(make([]byte, 1))
	fmt.Println("killed, reset:", errors.Is(err, syscall.ECONNRESET))
	proxy.Refuse()
	_, err = net.Dial("tcp", proxy.Addr())
	fmt.Println("refusing, refused:", errors.Is(err, syscall.ECONNREFUSED))
	proxy.Heal()
	c2, _ := net.Dial("tcp", proxy.Addr())
	defer c2.Close()
	fmt.Fprintln(c2, "again")
	line, _ = bufio.NewReader(c2).ReadString('\n')
	fmt.Print("healed, echoed: ", line)
	fmt.Println("accepted:", proxy.Accepted())
	// Output:
	// echoed: hello
	// killed, reset: true
	// refusing, refused: true
	// healed, echoed: again
	// accepted: 2
}
