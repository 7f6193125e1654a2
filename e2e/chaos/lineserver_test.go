package chaos

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"
)

// The line protocol of the TCP subjects, one line each:
//
//	client: "hello NAME"  the Handshake, inside every attempt
//	server: "ok"          NAME's connection is counted from here
//	client: "e N"         an echo request
//	server: "e N"         the same line back
func startLineServer(t testing.TB, name string, live *liveCounter) *acceptor {
	return startAcceptor(t, name, func(c net.Conn) { serveLines(c, live) })
}

func serveLines(c net.Conn, live *liveCounter) {
	_ = c.SetReadDeadline(time.Now().Add(writeTimeout))
	r := bufio.NewReader(c)
	hello, err := r.ReadString('\n')
	id, ok := strings.CutPrefix(strings.TrimSpace(hello), "hello ")
	if err != nil || !ok {
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	live.open(id)
	defer func() { c.Close(); live.close(id) }() // closed first, then counted closed
	if _, err := c.Write([]byte("ok\n")); err != nil {
		return
	}
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		_ = c.SetWriteDeadline(time.Now().Add(writeTimeout))
		if _, err := c.Write([]byte(line)); err != nil {
			return
		}
	}
}
