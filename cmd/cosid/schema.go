package main

import (
	"errors"
	"fmt"
	"strings"

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
			if dialect == "" {
				return usageErr(cmd, "want --dialect: postgresql, mysql, mariadb, sqlserver or sqlite")
			}
			script, err := sqlstore.Schema(dialectName(dialect), tables)
			if err != nil {
				return errors.New(flagNames.Replace(err.Error())) // the flags' names, not the options'
			}
			_, err = fmt.Fprint(cmd.OutOrStdout(), script)
			return err
		},
	}
	def := sqlstore.DefaultTables()
	fl := cmd.Flags()
	fl.StringVar(&dialect, "dialect", "", "postgresql (or postgres, pg), mysql, mariadb, sqlserver (or mssql) or sqlite, in any case")
	fl.StringVar(&tables.Range, "range-table", def.Range, "the range table's name")
	fl.StringVar(&tables.Slot, "slot-table", def.Slot, "the slot table's name")
	fl.StringVar(&tables.Namespace, "namespace-table", def.Namespace, "the namespace table's name")
	return cmd
}

// dialectAliases are the other names of the dialects that people type.
var dialectAliases = map[string]string{"postgres": "postgresql", "pg": "postgresql", "pgx": "postgresql", "mssql": "sqlserver"}

// dialectName returns the sqlstore name of the dialect the user typed.
func dialectName(s string) string {
	s = strings.ToLower(s)
	if name, ok := dialectAliases[s]; ok {
		return name
	}
	return s
}

// flagNames turns the option names in sqlstore's errors into this command's flags.
var flagNames = strings.NewReplacer("rangeTable", "--range-table", "slotTable", "--slot-table", "namespaceTable", "--namespace-table")
