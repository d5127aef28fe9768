package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cosid-go/cosid/store/sqlstore"
)

func schemaCommand() *cobra.Command {
	var (
		dialect string
		tables  sqlstore.Tables
	)
	cmd := &cobra.Command{
		Use:   "schema",
		Short: "Print the SQL store's schema script for a dialect, for a DBA to run",
		Example: `  cosid schema --dialect postgresql
  cosid schema --dialect mysql --range-table ids.cosid_range`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			script, err := sqlstore.Schema(dialect, tables)
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(cmd.OutOrStdout(), script)
			return err
		},
	}
	def := sqlstore.DefaultTables()
	fl := cmd.Flags()
	fl.StringVar(&dialect, "dialect", "", "postgresql, mysql, mariadb, sqlserver or sqlite")
	fl.StringVar(&tables.Range, "range-table", def.Range, "the range table's name")
	fl.StringVar(&tables.Slot, "slot-table", def.Slot, "the slot table's name")
	fl.StringVar(&tables.Namespace, "namespace-table", def.Namespace, "the namespace table's name")
	_ = cmd.MarkFlagRequired("dialect")
	return cmd
}
