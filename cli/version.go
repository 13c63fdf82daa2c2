package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// cmdVersion is `detsim --version`: the simulator_version every bundle
// this binary writes records (docs/bundle.md), then the Go toolchain and
// the platform, the facts a bug report needs.
func cmdVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		return usageErr(stderr, "--version takes no arguments, got %q", args[0])
	}
	fmt.Fprintf(stdout, "detsim %s (%s, %s/%s)\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return exitOK
}

// SimulatorVersion, when set (cmd/detsim sets it from its own
// main.simulatorVersion, linked in at build time), is the version every
// manifest records, ahead of anything the build info says:
//
//	go build -ldflags "-X main.simulatorVersion=v1.4.0" ./cmd/detsim
//
// Release and container builds set it; they often build from a tree
// without .git, or with -buildvcs=false, where no commit is stamped.
var SimulatorVersion string

// version is the simulator_version of a manifest (docs/bundle.md): the
// ldflags value if set, else the commit the go command stamped
// (vcs.revision, "-dirty" when the tree had changes), else the main
// module's version from the build info ("(devel)" for a local build
// without VCS stamping, the tag for one installed as module@version),
// else "unknown".
func version() string {
	info, ok := debug.ReadBuildInfo()
	return versionFrom(SimulatorVersion, info, ok)
}

func versionFrom(ldflags string, info *debug.BuildInfo, ok bool) string {
	if ldflags != "" {
		return ldflags
	}
	if !ok {
		return "unknown"
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	switch {
	case rev != "" && dirty:
		return rev + "-dirty"
	case rev != "":
		return rev
	case info.Main.Version != "":
		return info.Main.Version
	}
	return "unknown"
}
