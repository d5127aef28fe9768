package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is the version a build stamps in with -ldflags "-X main.version=…" (the
// image of deploy/image.sh does: a workspace build's module version is "(devel)").
// Empty, the build information's module version is printed.
var version string

func versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of cosid: module version, VCS revision, Go version, platform",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "cosid %s\n", versionLine())
			return err
		},
	}
}

// versionLine describes this binary from its build information: the module version
// (a pseudo-version when built from a git checkout, v1.2.3 from go install), the
// VCS revision and time where the build recorded them, the Go version and platform.
func versionLine() string {
	v, vcs := "(unknown)", ""
	if info, ok := debug.ReadBuildInfo(); ok {
		v = info.Main.Version
		settings := map[string]string{}
		for _, s := range info.Settings {
			settings[s.Key] = s.Value
		}
		if rev := settings["vcs.revision"]; rev != "" {
			vcs = " " + settings["vcs"] + " " + rev
			if t := settings["vcs.time"]; t != "" {
				vcs += " " + t
			}
			if settings["vcs.modified"] == "true" {
				vcs += " (modified)"
			}
		}
	}
	if version != "" {
		v = version
	}
	return fmt.Sprintf("%s%s %s %s/%s", v, vcs, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
