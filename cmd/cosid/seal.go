package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func sealCommand() *cobra.Command {
	var f adminFlags
	cmd := &cobra.Command{
		Use:   "seal KEY...",
		Short: "Seal keys: every later reservation of them fails, and their values stay",
		Long: `Seal each KEY, such as app/bill/20261027: every later reservation of it fails
with "key sealed", and its value is kept, so that it is never handed out again. A key
that does not exist is created sealed. Generators already holding a range of the key
finish it.`,
		Example: `  cosid seal app/bill/20261027
  cosid seal app/order --config cosid.yaml --store db`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, _, err := f.open(cmd.Context(), cmd, warnLogger(cmd))
			if err != nil {
				return err
			}
			defer a.Close()
			for _, key := range args {
				if err := a.Seal(cmd.Context(), key); err != nil {
					return err
				}
				page, err := a.Keys(cmd.Context(), key, "", 1)
				if err != nil {
					return err
				}
				if len(page) == 1 && page[0].Key == key {
					fmt.Fprintf(cmd.OutOrStdout(), "sealed %s at next value %d\n", key, page[0].Next)
				}
			}
			return nil
		},
	}
	f.register(cmd)
	return cmd
}
