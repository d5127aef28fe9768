package faultproxy_test

import (
	"bufio"
	"fmt"
	"io"
	"net"

	"github.com/cosid-go/cosid/internal/testkit/faultproxy"
)

// A proxy stands between a client and a server; a test dials the proxy and sets
// its faults.
func ExampleProxy() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ln.Close()
	go func() { // the server: an echo
		c, err := ln.Accept()
		if err == nil {
			io.Copy(c, c)
			c.Close()
		}
	}()
	p, err := faultproxy.New(ln.Addr().String())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	fmt.Fprintln(c, "through the proxy")
	line, _ := bufio.NewReader(c).ReadString('\n')
	fmt.Print(line)
	p.Set(faultproxy.Reset, 0)
	_, err = fmt.Fprintln(c, "after a reset")
	_, rerr := bufio.NewReader(c).ReadString('\n')
	fmt.Println("reset:", err != nil || rerr != nil)
	// Output:
	// through the proxy
	// reset: true
}
