//go:build linux

package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestInitHosts: `lspkit init` for the hosts that are proven by their
// own commands rather than by TestHosts' status checks. Copilot CLI, as
// shipped (its pinned version): after `lspkit init --host copilot
// --shared` it lists no project server until the folder is trusted (the
// step init prints), then lspkit from .github/mcp.json; and its own LSP
// client lists `lspkit lsp` for the file types lspkit serves, from
// .github/lsp.json.
func TestInitHosts(t *testing.T) {
	hostsBin := os.Getenv("LSPKIT_HOSTS")
	if hostsBin == "" {
		t.Skip("LSPKIT_HOSTS (the hosts' node_modules/.bin) not set: scripts/test-hosts.sh runs this test")
	}
	home, proj, env := hostScratch(t, hostsBin)
	run := func(want *regexp.Regexp, args ...string) string {
		t.Helper()
		out, err := host(t, env, proj, "", args...)
		if err != nil || !want.MatchString(out) {
			t.Fatalf("%s: %v\n%s\nwant %s", strings.Join(args, " "), err, out, want)
		}
		return out
	}
	t.Run("copilot", func(t *testing.T) {
		run(regexp.MustCompile(`(?s)\.github/mcp\.json: created\n\.github/lsp\.json: created\n.*--trust-folder`), "lspkit", "init", "--host", "copilot", "--shared")
		if out := run(regexp.MustCompile(`.`), "copilot", "mcp", "list"); strings.Contains(out, "lspkit") {
			t.Fatalf("copilot mcp list in an untrusted folder lists lspkit:\n%s", out)
		}
		writeFiles(t, home, map[string]string{".copilot/config.json": fmt.Sprintf(`{"trustedFolders": [%q]}`, proj)})
		run(regexp.MustCompile(`(?s)Command: lspkit mcp --shared.*Source: Workspace \(`+regexp.QuoteMeta(proj)+`/\.github/mcp\.json\)`), "copilot", "mcp", "get", "lspkit")
		run(regexp.MustCompile(`lspkit \((?:[^,)]+, )*\.go, (?:[^,)]+, )*\.py, `), "copilot", "lsp", "list")
	})
}
