package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cosid-go/cosid"
)

func decodeCommand() *cobra.Command {
	var config string
	cmd := &cobra.Command{
		Use:   "decode NAME TEXT",
		Short: "Print the id that a text of a generator stands for, as JSON",
		Long: `Print the id that TEXT, a text of the generator NAME, stands for, as JSON:
{"period":"20261027","value":42} for a periodic segment, {"value":42} for a segment,
and for a snowflake its time (RFC 3339 with milliseconds, in the zone of its friendly
codec item, else UTC), machine and sequence:
{"value":"918254194220072962","time":"2026-10-27T09:30:15.123Z","machine":7,"sequence":42};
a cosid-generator's id, 80 bits and text only, has no value:
{"time":"2026-10-27T09:30:15.123Z","machine":7,"sequence":42}.
A value above 2^53 is written as a JSON string, so that JavaScript loses no digit.
The generator's codec comes from the configuration; nothing is opened. Without a
configuration, NAME is an ad-hoc segment, whose text is plain decimal.`,
		Example: `  cosid decode bill 20261027-000042
  cosid decode order 42 --config cosid.yaml`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErr(cmd, fmt.Sprintf("want a generator NAME and a TEXT of it, got %s", plural(len(args), "argument")))
			}
			name, text := args[0], args[1]
			cfg, ok, err := readConfig(config, cmd.Flags().Changed("config"))
			if err != nil {
				return err
			}
			if !ok {
				cfg = cosid.Config{Generators: map[string]cosid.GeneratorConfig{name: {Strategy: cosid.DefaultStrategy, Store: cosid.DefaultStore}},
					Stores: cosid.DefaultConfig().Stores}
			}
			if err := cfg.Validate(); err != nil {
				return err
			}
			d, err := cfg.Decode(name, text)
			if err != nil {
				return err
			}
			data, err := json.Marshal(d)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s\n", data)
			return err
		},
	}
	cmd.Flags().StringVarP(&config, "config", "c", defaultConfig, "the configuration file")
	return cmd
}
