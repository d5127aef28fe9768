package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cosid-go/cosid"
)

// decoded is the JSON form of a decoded id.
type decoded struct {
	Period string `json:"period,omitempty"`
	Value  int64  `json:"value"`
}

func decodeCommand() *cobra.Command {
	var config string
	cmd := &cobra.Command{
		Use:   "decode NAME TEXT",
		Short: "Print the id that a text of a generator stands for, as JSON",
		Long: `Print the id that TEXT, a text of the generator NAME, stands for, as JSON:
{"period":"20261027","value":42} for a periodic segment, {"value":42} for the others.
The generator's codec comes from the configuration; nothing is opened. Without a
configuration, NAME is an ad-hoc segment, whose text is plain decimal.`,
		Example: `  cosid decode bill 20261027-000042
  cosid decode order 42 --config cosid.yaml`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, text := args[0], args[1]
			cfg, ok, err := readConfig(config, cmd.Flags().Changed("config"))
			if err != nil {
				return err
			}
			if !ok {
				cfg = cosid.Config{Generators: map[string]cosid.GeneratorConfig{name: {Strategy: "segment", Store: cosid.DefaultStore}},
					Stores: cosid.DefaultConfig().Stores}
			}
			if err := cfg.Validate(); err != nil {
				return err
			}
			var out decoded
			if g, ok := cfg.Generators[name]; ok && g.Strategy == "periodic-segment" {
				c, err := cfg.GroupedCodec(name)
				if err != nil {
					return err
				}
				id, err := c.Decode(text)
				if err != nil {
					return err
				}
				out = decoded{Period: id.Period, Value: id.Value}
			} else {
				c, err := cfg.Codec(name)
				if err != nil {
					return err
				}
				if out.Value, err = c.Decode(text); err != nil {
					return err
				}
			}
			data, err := json.Marshal(out)
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
