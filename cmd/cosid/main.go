// Command cosid hands out CosId ids from the command line.
//
//	cosid next order -n 3                     # three ids of cosid/order from ./cosid.db
//	cosid next bill --config cosid.yaml       # 20261027-000042: a configured generator's text
//	cosid next order --dsn postgres://user@db/app
//	cosid decode bill 20261027-000042         # {"period":"20261027","value":42}
//	cosid config check --config cosid.yaml    # check a configuration, list its generators
//	cosid schema --dialect postgresql         # the SQL store's tables, for a DBA
//	cosid version                             # or cosid --version
//
// It links every database driver that the SQL store supports.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run runs the command line args and returns the exit code: 0, or 1 after printing
// the error to stderr.
func run(args []string, stdout, stderr io.Writer) int {
	root := &cobra.Command{
		Use:           "cosid",
		Short:         "CosId: distributed ids from a shared store",
		Version:       versionLine(),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetVersionTemplate("cosid {{.Version}}\n")
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(nextCommand(stderr), decodeCommand(), configCommand(stderr), schemaCommand(), versionCommand())
	root.AddCommand(serveCommand(stderr))
	root.AddCommand(keysCommand(), slotsCommand(), sealCommand(), purgeCommand(), migrateCommand())
	if err := root.Execute(); err != nil {
		msg := err.Error()
		if !strings.HasPrefix(msg, "cosid: ") {
			msg = "cosid: " + msg
		}
		fmt.Fprintln(stderr, msg)
		return 1
	}
	return 0
}

// usageErr is the error of a command line that does not fit cmd: what is wrong,
// then cmd's usage.
func usageErr(cmd *cobra.Command, msg string) error {
	return fmt.Errorf("%s\n\n%s", msg, strings.TrimRight(cmd.UsageString(), "\n"))
}
