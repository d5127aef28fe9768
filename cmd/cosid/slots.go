package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/store"
)

func slotsCommand() *cobra.Command {
	var (
		f      adminFlags
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "slots NAMESPACE|GENERATOR",
		Short: "Print the slot table of a namespace: owners, fences, expiry, floors",
		Long: `Print the slots of the namespace that were ever leased: for each, its owner
(none once released), its fence, when its lease expires by the store clock, its
floor and ceiling (epoch ms), the floor of its next owner, and its state: held, expired (the owner may still
renew it until another takes the slot) or free. A Snowflake generator NAME of a
configuration with namespace NS leases its machine id in the namespace NS/NAME:
give either.

With --json the namespace is one JSON object in the style of keys --json:
lower-case names, durations in ms, times in RFC 3339, and no expiresAt for a slot
never leased.`,
		Example: `  cosid slots app/event
  cosid slots event --json`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr(cmd, fmt.Sprintf("want one NAMESPACE (such as app/event) or the NAME of a Snowflake generator, got %s", plural(len(args), "argument")))
			}
			a, cfg, err := f.open(cmd.Context(), cmd, warnLogger(cmd))
			if err != nil {
				return err
			}
			defer a.Close()
			ns := leaseNamespace(cfg, args[0])
			info, err := a.Slots(cmd.Context(), ns)
			if errors.Is(err, store.ErrNotFound) && !strings.Contains(ns, "/") {
				return fmt.Errorf("%w; a Snowflake generator NAME of namespace NS leases in NS/NAME: give the namespace, or the NAME of a Snowflake generator of the configuration (it has: %s)",
					err, snowflakeNames(cfg))
			}
			if err != nil {
				return err
			}
			if asJSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(namespaceJSON(info))
			}
			return printSlots(cmd.OutOrStdout(), info)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "the namespace and its slots as one JSON object (lower-case names, ms, RFC 3339)")
	f.register(cmd)
	f.access = readOnly
	return cmd
}

// leaseNamespace returns the namespace NS/NAME that the Snowflake generator arg of
// cfg leases in, or arg when cfg has no such generator.
func leaseNamespace(cfg cosid.Config, arg string) string {
	if gc, ok := cfg.Generators[arg]; ok && gc.Leases() {
		ns := cfg.Namespace
		if ns == "" {
			ns = cosid.DefaultNamespace
		}
		return ns + "/" + arg
	}
	return arg
}

func snowflakeNames(cfg cosid.Config) string {
	var names []string
	for _, name := range slices.Sorted(maps.Keys(cfg.Generators)) {
		if gc := cfg.Generators[name]; gc.Leases() {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// slotsJSON is a store.NamespaceInfo in the style of keys --json.
type slotsJSON struct {
	Namespace   string     `json:"namespace"`
	Limit       int        `json:"limit"`
	ToleranceMs int64      `json:"toleranceMs"`
	StoreNow    string     `json:"storeNow"`
	Slots       []slotJSON `json:"slots"`
}

type slotJSON struct {
	Slot         int    `json:"slot"`
	State        string `json:"state"`
	OwnerKey     string `json:"ownerKey,omitempty"`
	LastOwnerKey string `json:"lastOwnerKey,omitempty"`
	Fence        int64  `json:"fence"`
	ExpiresAt    string `json:"expiresAt,omitempty"` // absent for a slot never leased
	FloorMs      int64  `json:"floorMs"`
	CeilingMs    int64  `json:"ceilingMs"`
	NextFloorMs  int64  `json:"nextFloorMs"`
}

func namespaceJSON(info store.NamespaceInfo) slotsJSON {
	out := slotsJSON{Namespace: info.Namespace, Limit: info.Limit, ToleranceMs: info.Tolerance.Milliseconds(),
		StoreNow: info.StoreNow.UTC().Format(time.RFC3339Nano), Slots: make([]slotJSON, 0, len(info.Slots))}
	for _, s := range info.Slots {
		j := slotJSON{Slot: s.Slot, State: slotState(s, info.StoreNow), OwnerKey: s.OwnerKey, LastOwnerKey: s.LastOwnerKey,
			Fence: s.Fence, FloorMs: s.Floor, CeilingMs: s.Ceiling, NextFloorMs: s.NextFloor}
		if s.Fence > 0 && !s.ExpiresAt.IsZero() {
			j.ExpiresAt = s.ExpiresAt.UTC().Format(time.RFC3339Nano)
		}
		out.Slots = append(out.Slots, j)
	}
	return out
}

func slotState(s store.SlotInfo, now time.Time) string {
	switch {
	case s.Held(now):
		return "held"
	case s.OwnerKey != "":
		return "expired"
	}
	return "free"
}

func printSlots(w io.Writer, info store.NamespaceInfo) error {
	fmt.Fprintf(w, "namespace %s: limit %d, tolerance %v, store time %s\n",
		info.Namespace, info.Limit, info.Tolerance, info.StoreNow.Format(time.RFC3339Nano))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SLOT\tSTATE\tOWNER\tLAST OWNER\tFENCE\tEXPIRES\tFLOOR\tCEILING\tNEXT FLOOR")
	for _, s := range info.Slots {
		state := slotState(s, info.StoreNow)
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
