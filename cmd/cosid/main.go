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

// groupCommand is a command that only groups subcommands: an unknown subcommand (a
// typo such as cosid config chek) is an error with cobra's suggestions, not the
// group's help and exit 0; flags are not parsed, so that a typo followed by the
// subcommand's flags is still reported as the typo.
func groupCommand(use, short string, subs ...*cobra.Command) *cobra.Command {
	cmd := &cobra.Command{
		Use:                        use,
		Short:                      short,
		FParseErrWhitelist:         cobra.FParseErrWhitelist{UnknownFlags: true},
		SuggestionsMinimumDistance: 2,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr(cmd, fmt.Sprintf("%s wants a subcommand", cmd.CommandPath()))
			}
			msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
			}
			return usageErr(cmd, msg)
		},
	}
	cmd.AddCommand(subs...)
	return cmd
}

// usageErr is the error of a command line that does not fit cmd: what is wrong,
// then cmd's usage.
func usageErr(cmd *cobra.Command, msg string) error {
	return fmt.Errorf("%s\n\n%s", msg, strings.TrimRight(cmd.UsageString(), "\n"))
}
