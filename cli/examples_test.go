package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The example manifests in docs/examples are YAML no test here can parse
// (the module has no YAML library, and one is not worth adding for two
// files; they were checked with PyYAML by hand). These tests hold them to
// what docs/sweeps.md says they do, and run the sweep command each one
// contains, on a few seeds, so a renamed flag breaks the build here and
// not on someone's cluster.

func readExample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if strings.Contains(s, "\t") {
		t.Errorf("%s: a tab: YAML indents with spaces only", name)
	}
	return s
}

func requireLines(t *testing.T, name, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q", name, w)
		}
	}
}

// sweepCommand is the `detsim sweep …` command of a manifest, up to its
// output redirection, with comments dropped and continuation lines joined.
func sweepCommand(t *testing.T, name, text string) []string {
	t.Helper()
	var code []string
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			code = append(code, line)
		}
	}
	m := regexp.MustCompile(`detsim sweep ([^>]*)>`).FindStringSubmatch(strings.Join(code, "\n"))
	if m == nil {
		t.Fatalf("%s: no detsim sweep command", name)
	}
	args := []string{"sweep"}
	for _, f := range strings.Fields(m[1]) {
		args = append(args, strings.Trim(f, `"`))
	}
	return args
}

// runExampleSweep runs a manifest's sweep command as shard index 0, on
// 16 seeds (two or more per shard), pinning into a temporary directory;
// it must hold.
func runExampleSweep(t *testing.T, args []string, indexVar string, vars map[string]string) {
	t.Helper()
	var run []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if v, ok := vars[a]; ok {
			a = v
		}
		switch {
		case a == "--seeds" && i+1 < len(args):
			run, i = append(run, a, "16"), i+1
		case a == "--corpus" && i+1 < len(args):
			run, i = append(run, a, t.TempDir()), i+1
		default:
			run = append(run, a)
		}
	}
	t.Setenv(indexVar, "0")
	r := runIn(run...)
	if r.code != 0 || !strings.Contains(r.stdout, `"type":"summary"`) || !strings.Contains(r.stdout, `"met":true`) {
		t.Fatalf("%v: exit %d\nstdout: %s\nstderr: %s", run, r.code, r.stdout, r.stderr)
	}
}

func TestExample_KubernetesIndexedJob(t *testing.T) {
	const name = "sweep-k8s-indexed-job.yaml"
	text := readExample(t, name)
	requireLines(t, name, text,
		"apiVersion: batch/v1", "kind: Job", "completionMode: Indexed",
		"completions: 8", "parallelism: 8", "restartPolicy: Never",
		"--shard-from-env JOB_COMPLETION_INDEX --shards 8", "--json",
		"> /out/shard-$JOB_COMPLETION_INDEX.jsonl", "--corpus /out/corpus",
		"backoffLimitPerIndex:", "action: FailIndex", "values: [1, 2, 3]")
	args := sweepCommand(t, name, text)
	runExampleSweep(t, args, "JOB_COMPLETION_INDEX", nil)
}

func TestExample_GitHubActionsMatrix(t *testing.T) {
	const name = "sweep-github-actions.yml"
	text := readExample(t, name)
	requireLines(t, name, text,
		"strategy:", "fail-fast: false", "matrix:", "index: [0, 1, 2, 3]",
		"SHARDS: 4", "SHARD_INDEX: ${{ matrix.index }}",
		"--shard-from-env SHARD_INDEX --shards \"$SHARDS\"", "--json",
		`> "shard-$SHARD_INDEX.jsonl"`,
		"actions/upload-artifact@v4", "if: always()", "needs: shard",
		"actions/download-artifact@v4", `cat "shard-$i.jsonl"`, `grep '"type":"seed"'`)
	args := sweepCommand(t, name, text)
	runExampleSweep(t, args, "SHARD_INDEX", map[string]string{"$SEEDS": "10000", "$SHARDS": "4"})
}
