// Package layout holds tests of the module's import graph: the rules of the package layout
// that a change could quietly break (ARCHITECTURE.md, at the repository's root, says them in
// words), and that its maps name every package.
package layout

import (
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/hitl-dev/hitl"

type pkg struct {
	ImportPath string
	Standard   bool
	Deps       []string
	Imports    []string
}

// packages lists the module's packages with their dependencies, as `go list` sees them, and
// the packages of the modules nested in it (a directory of the root with a go.mod of its own,
// such as temporal/, which keeps Temporal's dependencies out of the main module), by name
// alone.
func packages(t *testing.T) map[string]pkg {
	t.Helper()
	pkgs := map[string]pkg{}
	list(t, pkgs, "-json=ImportPath,Imports,Deps", module+"/...")
	nested, err := filepath.Glob("../../*/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, gomod := range nested {
		for _, path := range nestedPackages(t, filepath.Dir(gomod)) {
			pkgs[path] = pkg{ImportPath: module + "/" + path}
		}
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages of %s", len(pkgs), module)
	}
	return pkgs
}

// nestedPackages are the directories under dir (a nested module's, such as ../../temporal)
// that hold Go files, as paths from the repository's root: found on disk, so that listing them
// needs neither the nested module's dependencies nor a build.
func nestedPackages(t *testing.T, dir string) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != dir && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") || d.Name() == "testdata"):
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go"):
			seen[filepath.ToSlash(strings.TrimPrefix(filepath.Dir(path), "../../"))] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return slices.Sorted(maps.Keys(seen))
}

// list adds the packages `go list args...` names to pkgs.
func list(t *testing.T, pkgs map[string]pkg, args ...string) {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs[strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")] = p
	}
}

func TestImportGraph(t *testing.T) {
	pkgs := packages(t)
	dependsOn := func(from, to string) bool {
		p, ok := pkgs[from]
		if !ok {
			t.Fatalf("no package %q", from)
		}
		return slices.Contains(p.Deps, module+"/"+to)
	}
	// The domain package depends on the standard library alone.
	for _, imp := range pkgs[""].Imports {
		if strings.Contains(strings.Split(imp, "/")[0], ".") {
			t.Errorf("the root package imports %s; it holds domain types on the standard library only", imp)
		}
	}
	// The words for domain values need the domain alone: every package that shows them to
	// people, the engine's messages among them, may use them.
	for _, imp := range pkgs["internal/wording"].Imports {
		if imp != module && strings.Contains(strings.Split(imp, "/")[0], ".") {
			t.Errorf("internal/wording imports %s; it words domain values on the root package and the standard library only", imp)
		}
	}
	for _, rule := range []struct{ from, to, why string }{
		{"engine", "notify", "the engine shares destinations, secrets and CloudEvents with notify through internal/outbound"},
		{"engine", "httpapi", "the engine knows no HTTP"},
		{"engine", "internal/httpwire", "the engine knows no HTTP"},
		{"engine", "client", "the engine is not a client of itself"},
		{"httpapi", "client", "each MCP backend lives where it is used: the client's in cmd/hitl"},
		{"protocol/mcp", "client", "the MCP tools talk to a backend interface"},
		{"broker", "engine", "the brokers publish what the outbox hands them; the engine is behind the intake's interface"},
		{"internal/httpwire", "engine", "the HTTP plumbing holds no rule: it reads requests and writes answers"},
		{"schema", "engine", "schema is a leaf the engine uses"},
		{"receipt", "engine", "receipts are verified offline, by executors that import the receipt package alone"},
		{"store/sqlite", "engine", "stores persist; they never decide"},
		{"store/postgres", "engine", "stores persist; they never decide"},
		{"store/internal/sqlstore", "engine", "what the stores share persists too; it never decides"},
		{"store/internal/sqlstore", "store/sqlite", "the stores pass their dialect in; the shared code knows no store"},
		{"store/internal/sqlstore", "store/postgres", "the stores pass their dialect in; the shared code knows no store"},
	} {
		if dependsOn(rule.from, rule.to) {
			t.Errorf("%s depends on %s: %s", rule.from, rule.to, rule.why)
		}
	}
	// One package per compatibility protocol (protocol/...), mounted by httpapi beside hitl's own
	// API: each maps its shapes onto the engine, which decides, and shares only the HTTP plumbing
	// (internal/httpwire) with httpapi. So a protocol never reaches past the engine to a store,
	// never depends on httpapi (which mounts it) or the inbox, and never on another protocol.
	protocols := 0
	for path := range pkgs {
		if !strings.HasPrefix(path, "protocol/") {
			continue
		}
		// A protocol's own subpackage (protocol/attune/executor: the payloads the brokers
		// send) maps shapes on the domain alone, so that its users need not bring the engine.
		if sub := strings.Count(path, "/") > 1; sub {
			if dependsOn(path, "engine") {
				t.Errorf("%s depends on the engine: a protocol's subpackage maps shapes on the domain alone", path)
			}
		} else if protocols++; !dependsOn(path, "engine") {
			t.Errorf("%s does not use the engine: a protocol maps its shapes onto the engine's operations", path)
		}
		for _, to := range []string{"store/sqlite", "store/postgres", "httpapi", "web"} {
			if dependsOn(path, to) {
				t.Errorf("%s depends on %s: a protocol talks to the engine, and httpapi mounts it", path, to)
			}
		}
		for other := range pkgs {
			own := other == path || strings.HasPrefix(other, path+"/")
			if strings.HasPrefix(other, "protocol/") && !own && dependsOn(path, other) {
				t.Errorf("%s depends on %s: each protocol stands alone", path, other)
			}
		}
	}
	if protocols < 5 {
		t.Errorf("%d protocol packages; want attune, openintent, nova, agentquestions and mcp under protocol/", protocols)
	}
	// What the SQL stores share is written on the domain and the standard library alone: each
	// store brings its driver, and passes in its dialect.
	for _, imp := range pkgs["store/internal/sqlstore"].Imports {
		if imp != module && strings.Contains(strings.Split(imp, "/")[0], ".") {
			t.Errorf("store/internal/sqlstore imports %s; it holds the stores' shared code on the root package and the standard library only", imp)
		}
	}
	// The engine's machinery imports the domain package, the clock and loops at most, never the engine
	// nor each other: each is handed what it needs at construction.
	machinery := []string{"engine/internal/deadline", "engine/internal/fanout", "engine/internal/outbox", "engine/internal/loops", "internal/clock"}
	for _, from := range machinery {
		for _, dep := range pkgs[from].Deps {
			to := strings.TrimPrefix(strings.TrimPrefix(dep, module), "/")
			if strings.HasPrefix(dep, module) && to != "" && to != "internal/clock" && to != "engine/internal/loops" {
				t.Errorf("%s depends on %s: the engine's machinery imports the domain package, the clock and loops only", from, to)
			}
		}
	}
	// What is not API lives under internal/.
	for _, gone := range []string{"store/groupcommit", "metrics", "credentials", "bench", "store/postgres/pgtest", "server", "httpwire"} {
		if _, ok := pkgs[gone]; ok {
			t.Errorf("package %s is not API; it belongs under internal/", gone)
		}
	}
	// No util, common or helpers packages.
	for path := range pkgs {
		base := path[strings.LastIndex(path, "/")+1:]
		if slices.Contains([]string{"util", "utils", "common", "helpers", "misc"}, base) {
			t.Errorf("package %s is named for nothing it provides", path)
		}
	}
}

// TestTestsDoNotSleep: tests wait for a condition (testserver.Eventually, WaitFor, Receive, a
// channel, a moved clock), never a sleep that hopes something has happened by then. (The
// pattern is split so that this file does not match it.)
func TestTestsDoNotSleep(t *testing.T) {
	out, err := exec.Command("git", "-C", "../..", "grep", "-n", "time."+"Sleep(", "--", "*_test.go").Output()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ee.ExitCode() == 1: // git grep found nothing
	case err != nil:
		t.Skipf("git grep: %v (not a git checkout?)", err)
	default:
		t.Errorf("tests that sleep instead of waiting for a condition:\n%s", out)
	}
}

// TestTheMapsListEveryPackage: ARCHITECTURE.md's code map and docs/development.md's "How it is built"
// name every package of the module, and no package that is not there, so that a package added,
// moved or removed updates the maps with it.
func TestTheMapsListEveryPackage(t *testing.T) {
	pkgs := packages(t)
	for _, m := range []struct {
		file  string
		names func(string) []string
	}{{"ARCHITECTURE.md", codeMapPackages}, {"docs/development.md", packageListPackages}} {
		text, err := os.ReadFile("../../" + m.file)
		if err != nil {
			t.Fatal(err)
		}
		named := map[string]bool{}
		for _, n := range m.names(string(text)) {
			named[n] = true
			if _, ok := pkgs[n]; !ok {
				t.Errorf("%s names the package %q, which the module does not have", m.file, cmp.Or(n, "hitl (root)"))
			}
		}
		if len(named) < 10 {
			t.Fatalf("%s names %d packages; is its map where this test looks for it?", m.file, len(named))
		}
		for _, p := range slices.Sorted(maps.Keys(pkgs)) {
			if !named[p] {
				t.Errorf("%s does not name the package %q", m.file, cmp.Or(p, "hitl (root)"))
			}
		}
	}
}

// codeMapPackages are the packages in the first column of ARCHITECTURE.md's code map: each
// row names one or more in backquotes; `hitl` (root) is the root package.
func codeMapPackages(text string) []string {
	_, after, _ := strings.Cut(text, "## Code map")
	var out []string
	for line := range strings.Lines(after) {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cell := strings.Split(line, "|")[1]
		for i, part := range strings.Split(cell, "`") {
			switch {
			case i%2 == 0:
			case part == "hitl":
				out = append(out, "")
			default:
				out = append(out, strings.TrimSuffix(part, "/"))
			}
		}
	}
	return out
}

// packageListPackages are the packages of docs/development.md's "How it is built": the first word of each
// line of its code block that does not start with a space ("hitl (root)" is the root package).
func packageListPackages(text string) []string {
	_, after, _ := strings.Cut(text, "## How it is built")
	_, block, _ := strings.Cut(after, "```\n")
	block, _, _ = strings.Cut(block, "```")
	var out []string
	for line := range strings.Lines(block) {
		if line == "" || line[0] == ' ' || line[0] == '\n' {
			continue
		}
		first := strings.Fields(line)[0]
		if first == "hitl" {
			first = ""
		}
		out = append(out, strings.TrimSuffix(first, "/"))
	}
	return out
}
