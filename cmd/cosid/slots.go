package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/cosid-go/cosid/store"
)

func slotsCommand() *cobra.Command {
	var (
		f      adminFlags
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "slots NAMESPACE",
		Short: "Print the slot table of a namespace: owners, fences, expiry, floors",
		Long: `Print the slots of the namespace that were ever leased: for each, its owner
(none once released), its fence, when its lease expires by the store clock, its
floor and ceiling (epoch ms), the floor of its next owner, and its state: held, expired (the owner may still
renew it until another takes the slot) or free. A Snowflake generator NAME of a
configuration with namespace NS leases its machine id in the namespace NS/NAME.`,
		Example: `  cosid slots app/event
  cosid slots app/event --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, _, err := f.open(cmd.Context(), cmd, warnLogger(cmd))
			if err != nil {
				return err
			}
			defer a.Close()
			info, err := a.Slots(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(info)
			}
			return printSlots(cmd.OutOrStdout(), info)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "the namespace and its slots as one JSON object")
	f.register(cmd)
	return cmd
}

func printSlots(w io.Writer, info store.NamespaceInfo) error {
	fmt.Fprintf(w, "namespace %s: limit %d, tolerance %v, store time %s\n",
		info.Namespace, info.Limit, info.Tolerance, info.StoreNow.Format(time.RFC3339Nano))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SLOT\tSTATE\tOWNER\tLAST OWNER\tFENCE\tEXPIRES\tFLOOR\tCEILING\tNEXT FLOOR")
	for _, s := range info.Slots {
		state := "free"
		switch {
		case s.Held(info.StoreNow):
			state = "held"
		case s.OwnerKey != "":
			state = "expired"
		}
		expires := "-"
		if s.Fence > 0 {
			expires = s.ExpiresAt.Format(time.RFC3339Nano)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%d\t%d\t%d\n", s.Slot, state, dash(s.OwnerKey), dash(s.LastOwnerKey), s.Fence,
			expires, s.Floor, s.Ceiling, s.NextFloor)
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
