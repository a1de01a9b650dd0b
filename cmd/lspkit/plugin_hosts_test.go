//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPluginHosts: the repo's plugins installed by the real hosts with
// README's lines (the repo here for lspkit/lspkit), in a scratch HOME (hosts from npm, pinned; lspkit on
// PATH as npx, a package or install.sh put it there).
//
// Claude Code adds the repo as a marketplace (.claude-plugin), installs
// lspkit@lspkit (plugins/claude-code), and `claude mcp list` shows the
// plugin's lspkit connected. Then, against the stand-in model, Claude Code
// writes a broken Go file with its Write tool and ends its turn: the
// plugin's hooks hold the turn once, and the model is shown gopls's error;
// a file that compiles draws no word from them.
//
// Copilot CLI adds the same repo as a marketplace (it reads .github/plugin
// first: the Agent Plugins layout, plugins/agent-plugins), installs
// lspkit@lspkit with its one skill, and lists the plugin's MCP server as
// lspkit mcp --shared. Copilot connects to MCP servers only in an agent
// session, which needs a GitHub sign-in or a model provider: the install
// and its configuration are what is checked here.
func TestPluginHosts(t *testing.T) {
	hostsBin := os.Getenv("LSPKIT_HOSTS")
	if hostsBin == "" {
		t.Skip("LSPKIT_HOSTS (the hosts' node_modules/.bin) not set: scripts/test-hosts.sh runs this test")
	}
	market, err := filepath.Abs(repo)
	if err != nil {
		t.Fatal(err)
	}
	home, proj, env := hostScratch(t, hostsBin)
	testdata, _ := filepath.Abs("testdata/hosts")
	run := func(t *testing.T, want *regexp.Regexp, args ...string) {
		t.Helper()
		out, err := host(t, env, proj, "", args...)
		if err != nil || !want.MatchString(out) {
			t.Fatalf("%s: %v\n%s\nwant %s", strings.Join(args, " "), err, out, want)
		}
	}
	// README's two commands for a host, the repo here for lspkit/lspkit on
	// GitHub, each with the answer it should get.
	install := func(t *testing.T, how string, want ...*regexp.Regexp) {
		t.Helper()
		steps := strings.Split(installLine(t, how), " && ")
		if len(steps) != len(want) {
			t.Fatalf("README's %s line has %d commands, want %d", how, len(steps), len(want))
		}
		for i, step := range steps {
			run(t, want[i], strings.Fields(strings.Replace(step, " lspkit/lspkit", " "+market, 1))...)
		}
	}

	t.Run("claude-code", func(t *testing.T) {
		install(t, "Claude Code plugin", regexp.MustCompile(`Successfully added marketplace: lspkit`), regexp.MustCompile(`Successfully installed plugin: lspkit@lspkit`))
		writeFiles(t, home, map[string]string{".claude.json": fmt.Sprintf(`{"projects": {%q: {"hasTrustDialogAccepted": true}}}`, proj)})
		run(t, regexp.MustCompile(`plugin:lspkit:lspkit: lspkit mcp --shared - . Connected`), "claude", "mcp", "list")

		write := func(file, content string) []heard {
			steps := []hookStep{{Tool: "Write", Args: map[string]any{"file_path": filepath.Join(proj, file), "content": content}}}
			return claudeTurn(t, env, proj, testdata, steps, "Write")
		}
		heard := write("broken.go", "package main\n\nvar broken string = 1\n")
		want := regexp.MustCompile(`(?s)Stop hook feedback:\nYour turn is ending with errors your edits in it introduced\..*<diagnostics file="broken\.go">\nERROR \[3:21\] cannot use 1 \(untyped int constant\) as string value in variable declaration`)
		if len(heard) != 3 || !want.MatchString(strings.Join(heard[2].New, "\n")) || lspkitSays(heard[1].New) != "" {
			t.Errorf("Claude Code wrote broken.go and ended its turn; the model heard %+v\nwant the turn held once with gopls's error", heard)
		}
		heard = write("fine.go", "package main\n\nvar fine = \"s\"\n")
		if len(heard) != 2 || !strings.Contains(strings.Join(heard[1].New, "\n"), "File created successfully") || lspkitSays(heard[1].New) != "" {
			t.Errorf("Claude Code wrote fine.go; the model heard %+v\nwant the Write's result alone, and no hold", heard)
		}
	})

	t.Run("copilot", func(t *testing.T) {
		// Each of the plugin's skills (service/skills), installed.
		skills, err := filepath.Glob(filepath.Join("..", "..", "plugins", "agent-plugins", "skills", "*", "SKILL.md"))
		if err != nil || len(skills) < 2 {
			t.Fatalf("the plugin's skills: %v %v", skills, err)
		}
		install(t, "Copilot CLI plugin", regexp.MustCompile(`Marketplace "lspkit" added successfully`), regexp.MustCompile(fmt.Sprintf(`Plugin "lspkit" installed successfully\. Installed %d skills\.`, len(skills))))
		run(t, regexp.MustCompile(`"name": "lspkit",\s+"marketplace": "lspkit",(?s:.*?)"enabled": true`), "copilot", "plugin", "list", "--json")
		run(t, regexp.MustCompile(`(?s)Command: lspkit mcp --shared.*Source plugin: lspkit`), "copilot", "mcp", "get", "lspkit")
	})
}
