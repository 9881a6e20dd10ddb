// Package buildinfo is the one place that says which hitl this is: the module version and the
// VCS revision the binary was built from (runtime/debug.ReadBuildInfo). `hitl version`, the
// hitl_build_info metric and the MCP server's version all read it.
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"sync"
)

// Devel and Unknown stand for what a binary does not record: the version of a build outside a
// module or a VCS checkout is "(devel)", its revision "unknown".
const (
	Devel   = "(devel)"
	Unknown = "unknown"
)

// Info is what the binary knows of its own build.
type Info struct {
	// Version is the main module's version: a tag (v1.2.3), a pseudo-version
	// (v0.0.0-20260301120000-6648c33a1b2c, +dirty when built from a modified tree), or "(devel)".
	Version string
	// Revision is the VCS commit, with "-dirty" when the tree had uncommitted changes; "unknown"
	// when the build recorded none (go run, go test, -buildvcs=false, a source archive).
	Revision string
	// GoVersion is the Go toolchain that built it (go1.26.8).
	GoVersion string
}

// String is the version as people read it: "(devel), revision unknown, go1.26.8".
func (i Info) String() string { return i.Short() + ", " + i.GoVersion }

// Short is the version and the revision, without the toolchain: the MCP server's version.
func (i Info) Short() string { return i.Version + ", revision " + i.Revision }

// Get reads the build information of the running binary once; it never fails.
var Get = sync.OnceValue(func() Info {
	bi, _ := debug.ReadBuildInfo()
	return From(bi)
})

// From makes an Info of bi, which may be nil (a binary built without module support).
func From(bi *debug.BuildInfo) Info {
	i := Info{Version: Devel, Revision: Unknown, GoVersion: runtime.Version()}
	if bi == nil {
		return i
	}
	if bi.Main.Version != "" {
		i.Version = bi.Main.Version
	}
	if bi.GoVersion != "" {
		i.GoVersion = bi.GoVersion
	}
	var modified bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			if s.Value != "" {
				i.Revision = s.Value
			}
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if modified && i.Revision != Unknown {
		i.Revision += "-dirty"
	}
	return i
}
