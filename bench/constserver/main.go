// Command constserver is the baseline of bench/serve.sh: a bare net/http server whose
// one handler answers a constant, on the address in its first argument.
package main

import (
	"log"
	"net/http"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: constserver ADDR")
	}
	body := []byte("42\n")
	log.Fatal(http.ListenAndServe(os.Args[1], http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write(body)
	})))
}
