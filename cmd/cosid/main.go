// Command cosid hands out CosId ids from the command line and, as it grows, serves
// them, migrates 4.x data and administers stores.
//
//	cosid next order -n 3              # three ids of cosid/order from ./cosid.db
//	cosid next order --dsn postgres://user@db/app
//	cosid version
//
// It links every database driver that the SQL store supports.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run runs the command line args and returns the exit code: 0, or 1 after printing
// the error to stderr.
func run(args []string, stdout, stderr io.Writer) int {
	root := &cobra.Command{
		Use:           "cosid",
		Short:         "CosId: distributed ids from a shared store",
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(nextCommand(stderr), versionCommand())
	if err := root.Execute(); err != nil {
		fmt.Fprintf(stderr, "cosid: %v\n", err)
		return 1
	}
	return 0
}
