package server_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl/internal/testskip"
)

// openIntentBlocks is docs/openintent.md's code blocks of language lang, in order.
func openIntentBlocks(t *testing.T, lang string) []string {
	t.Helper()
	page, err := os.ReadFile("../../docs/openintent.md")
	must(t, err)
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)```"+lang+"\n(.*?)```").FindAllStringSubmatch(string(page), -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

// TestOpenIntentDocsSetUpWhatTheExamplesRead: the Try-it setup starts hitl serve with flags it
// has, and exports every variable the Python agent and the curl steps read.
func TestOpenIntentDocsSetUpWhatTheExamplesRead(t *testing.T) {
	sh := openIntentBlocks(t, "sh")
	setup := sh[0]
	reference, err := os.ReadFile("../../docs/configuration.md")
	must(t, err)
	_, serveFlags, _ := strings.Cut(string(reference), "## hitl serve")
	serveLine := regexp.MustCompile(`(?m)^hitl serve.*$`).FindString(setup)
	if serveLine == "" {
		t.Fatalf("the setup starts no hitl serve:\n%s", setup)
	}
	for _, flag := range regexp.MustCompile(`--[a-z-]+`).FindAllString(strings.SplitN(serveLine, "#", 2)[0], -1) {
		if !strings.Contains(serveFlags, "`"+flag+"`") {
			t.Errorf("hitl serve has no %s (docs/configuration.md): %s", flag, serveLine)
		}
	}
	exported := map[string]bool{}
	for _, m := range regexp.MustCompile(`export (\w+)=`).FindAllStringSubmatch(setup, -1) {
		exported[m[1]] = true
	}
	python := openIntentBlocks(t, "python")[0]
	for _, m := range regexp.MustCompile(`os\.environ\["(\w+)"\]`).FindAllStringSubmatch(python, -1) {
		if !exported[m[1]] {
			t.Errorf("the agent reads %s, which the setup does not export", m[1])
		}
	}
	if !strings.Contains(python, `os.environ["AGENT_KEY"]`) {
		t.Errorf("the agent does not read its key from the environment:\n%s", python)
	}
	for _, block := range sh[1:] {
		for _, m := range regexp.MustCompile(`\$([A-Z_][A-Z0-9_]*)`).FindAllStringSubmatch(block, -1) {
			if name := m[1]; !exported[name] && !strings.Contains(strings.Join(sh[1:], ""), name+"=$(") {
				t.Errorf("a step uses $%s, which nothing before it sets", name)
			}
		}
	}
}

// TestOpenIntentDocsWalkThroughRuns: the page's curl steps, run as written one after the other
// in one shell against a real server: each takes its ids from the step before, and the
// operator's answer fits the question asked.
func TestOpenIntentDocsWalkThroughRuns(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			testskip.Skip(t, "the docs' curl walk-through needs "+tool)
		}
	}
	e := newEnv(t)
	var script strings.Builder
	script.WriteString("set -e\n")
	for _, block := range openIntentBlocks(t, "sh")[1:] {
		if strings.Contains(block, "$HITL_URL") && !strings.Contains(block, "hitl keys") {
			script.WriteString(block)
		}
	}
	cmd := exec.Command("bash", "-c", script.String())
	cmd.Env = append(os.Environ(), "HITL_URL="+e.URL, "AGENT_KEY="+e.token("refund-agent", "agent"), "OPS_KEY="+e.token("ops", "responder"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the walk-through failed: %v\n%s\n%s", err, script.String(), out)
	}
	for _, want := range []string{`"status":"suspended_awaiting_input"`, `is at version 2, not 1`, `"resolution":"responded","value":"approve","responded_by":"ops"`,
		`"event_type":"comment"`, `"event_type":"intent.resumed"`, `"status":"completed"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the walk-through's output has no %s:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), `"status":422`) || strings.Contains(string(out), `"status":404`) || strings.Contains(string(out), `"status":400`) {
		t.Errorf("a step was refused:\n%s", out)
	}
}
