// Command modules tells scripts/tidy the modules of the repository, from go.work
// (docs/modules.md), and keeps go.work's replace block in step with the requires.
//
//	modules [-C ROOT] list       one module a line, in the order of their requires:
//	                             DIR PATH KIND (released, unreleased or tool)
//	modules [-C ROOT] syncwork   go.work replaces, for each version at which a module
//	                             of go.work requires one of the repository, that
//	                             module by its directory; prints go.work if it changed
//
// It runs as a tool of internal/tools/go.mod:
//
//	GOWORK=off go tool -modfile=internal/tools/go.mod modules list
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/cosid-go/cosid/internal/tools/internal/repo"
)

func main() {
	root := flag.String("C", ".", "the root of the repository, where go.work is")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: modules [-C ROOT] list|syncwork")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	r, err := repo.Load(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "modules:", err)
		os.Exit(1)
	}
	switch flag.Arg(0) {
	case "list":
		for _, m := range r.Modules {
			fmt.Printf("%s %s %s\n", m.Dir, m.Path, m.Kind)
		}
	case "syncwork":
		changed, err := r.SyncWork()
		if err != nil {
			fmt.Fprintln(os.Stderr, "modules:", err)
			os.Exit(1)
		}
		if changed {
			fmt.Println("go.work")
		}
	default:
		flag.Usage()
		os.Exit(2)
	}
}
