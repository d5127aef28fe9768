package sim

import (
	"fmt"
	"strings"
)

// plantTags are the build tags of the planted defects built in (see the plant_*.go
// files), for the command that replays a run.
var plantTags []string

// ReplayCommand returns the command that plays seed's schedule again in test, with
// env (variables such as "COSID_SIM_SCHEDULES=1 ") before it.
func ReplayCommand(seed uint64, test, env string) string {
	tags := ""
	if len(plantTags) > 0 {
		tags = " -tags " + strings.Join(plantTags, ",")
	}
	return fmt.Sprintf("%sCOSID_SIM_SEED=%d go test -count=1%s -run '^%s$' ./internal/testkit/sim", env, seed, tags, test)
}
