package buildinfo

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestFrom(t *testing.T) {
	for _, c := range []struct {
		name string
		bi   *debug.BuildInfo
		want Info
	}{
		{"no build information", nil, Info{Devel, Unknown, runtime.Version()}},
		{"no VCS information", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/hitl-dev/hitl", Version: "(devel)"}},
			Info{Devel, Unknown, "go1.26.8"}},
		{"an empty main version", &debug.BuildInfo{GoVersion: "go1.26.8"}, Info{Devel, Unknown, "go1.26.8"}},
		{"a tagged build", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"},
			Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "6648c33a1b2c"}, {Key: "vcs.modified", Value: "false"}}},
			Info{"v1.2.3", "6648c33a1b2c", "go1.26.8"}},
		{"a modified tree", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20260301120000-6648c33a1b2c+dirty"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "6648c33a1b2c"}, {Key: "vcs.modified", Value: "true"}}},
			Info{"v0.0.0-20260301120000-6648c33a1b2c+dirty", "6648c33a1b2c-dirty", "go1.26.8"}},
		{"modified but no revision", &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.modified", Value: "true"}}},
			Info{Devel, Unknown, runtime.Version()}},
	} {
		if got := From(c.bi); got != c.want {
			t.Errorf("%s: From = %+v, want %+v", c.name, got, c.want)
		}
	}
	i := Info{"v1.2.3", "6648c33a1b2c", "go1.26.8"}
	if s := i.String(); s != "v1.2.3, revision 6648c33a1b2c, go1.26.8" {
		t.Errorf("String = %q", s)
	}
	if s := i.Short(); s != "v1.2.3, revision 6648c33a1b2c" {
		t.Errorf("Short = %q", s)
	}
}

// TestGet: a test binary has build information but no VCS stamp; Get says so rather than fail.
func TestGet(t *testing.T) {
	i := Get()
	if i.Version == "" || i.Revision == "" || i.GoVersion == "" {
		t.Fatalf("Get = %+v: every field must be set", i)
	}
}
