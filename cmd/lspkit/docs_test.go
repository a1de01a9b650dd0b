//go:build linux

package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/pelletier/go-toml/v2"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/service/registry"
)

// update rewrites the generated blocks of the docs from the code instead
// of checking them: go test ./cmd/lspkit -run TestDocsGenerated -update.
var update = flag.Bool("update", false, "rewrite the docs' generated blocks")

// repo is the repository's top directory, from this package's.
const repo = "../.."

// docFiles are the Markdown files the docs tests read: README.md and
// docs/*.md.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("docs/*.md: %v", err)
	}
	return append([]string{filepath.Join(repo, "README.md")}, files...)
}

// TestDocsGenerated: the reference tables are the code's — the commands
// and flags (the definitions lspkit --help is made from), the
// configuration keys (config.Keys, which Parse accepts and no other) and
// the built-in servers (servers.json) — each between its markers in docs/.
func TestDocsGenerated(t *testing.T) {
	keys, err := keysMarkdown()
	if err != nil {
		t.Fatal(err)
	}
	servers, err := serversMarkdown()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []struct{ file, name, text string }{
		{"docs/contract.md", "commands", commandsMarkdown()},
		{"docs/configuration.md", "keys", keys},
		{"docs/servers.md", "servers", servers},
	} {
		path := filepath.Join(repo, g.file)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		begin := "<!-- generated: " + g.name + " (go test ./cmd/lspkit -run TestDocsGenerated -update) -->\n"
		end := "<!-- end: " + g.name + " -->"
		i, j := bytes.Index(data, []byte(begin)), bytes.Index(data, []byte(end))
		if i < 0 || j < i {
			t.Errorf("%s: no %q … %q markers", g.file, strings.TrimSpace(begin), end)
			continue
		}
		got := string(data[i+len(begin) : j])
		if got == g.text {
			continue
		}
		if *update {
			out := append(append(slices.Clone(data[:i+len(begin)]), g.text...), data[j:]...)
			if err := os.WriteFile(path, out, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s: the %s block is not what the code says; run go test ./cmd/lspkit -run TestDocsGenerated -update\n--- want\n%s", g.file, g.name, g.text)
	}
}

// TestDocsServerCounts: the counts of built-in and live-tested servers in
// README and docs/benchmarks.md are servers.json's.
func TestDocsServerCounts(t *testing.T) {
	specs, err := registry.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	tested := 0
	for _, s := range specs {
		if s.Tested {
			tested++
		}
	}
	for doc, want := range map[string]string{
		"docs/benchmarks.md": fmt.Sprintf("(%d servers are live-tested", tested),
		"README.md":          fmt.Sprintf("the %d built-in servers, which %d are live-tested", len(specs), tested),
	} {
		data, err := os.ReadFile(filepath.Join(repo, doc))
		if err != nil {
			t.Fatal(err)
		}
		if text := strings.Join(strings.Fields(string(data)), " "); !strings.Contains(text, want) {
			t.Errorf("%s does not say %q (servers.json: %d servers, %d live-tested)", doc, want, len(specs), tested)
		}
	}
}

// commandsMarkdown is every command's synopsis, help and flags table.
func commandsMarkdown() string {
	var b strings.Builder
	for _, c := range commands() {
		if c.hidden {
			continue
		}
		fmt.Fprintf(&b, "\n### `lspkit %s`\n\n`%s`\n\n%s\n", c.name, c.synopsis(), c.help)
		docs := c.flagDocs()
		if len(docs) == 0 {
			continue
		}
		b.WriteString("\n| flag | default | meaning |\n|---|---|---|\n")
		for _, f := range docs {
			name := "`--" + strings.TrimSpace(f.name+" "+f.arg) + "`"
			def := f.def
			if def != "" {
				def = "`" + def + "`"
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", name, def, strings.ReplaceAll(f.meaning, "|", `\|`))
		}
	}
	return b.String() + "\n"
}

// keysMarkdown is the configuration keys' table.
func keysMarkdown() (string, error) {
	var b strings.Builder
	b.WriteString("\n| key | type | default | meaning |\n|---|---|---|---|\n")
	for _, k := range config.Keys() {
		def := "the built-in's"
		if k.Default != "" {
			def = "`" + k.Default + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", k.Path, strings.ReplaceAll(k.Type, "|", `\|`), def, k.Meaning)
	}
	return b.String() + "\n", nil
}

// serversMarkdown is the built-in servers' table.
func serversMarkdown() (string, error) {
	specs, err := registry.Builtins()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("\n| id | language | files | command | install (pinned) | live-tested | on by default |\n|---|---|---|---|---|---|---|\n")
	for _, id := range slices.Sorted(maps.Keys(specs)) {
		s := specs[id]
		files := strings.Join(append(slices.Clone(s.Extensions), s.FileNames...), " ")
		install := "— (install it yourself)"
		if s.Install != nil && s.Install.From != nil {
			install = s.Install.From.Kind + ": `" + strings.Join(s.Install.From.Packages, " ") + "`"
		}
		tested, on := "no", "yes"
		if s.Tested {
			tested = "yes"
			if s.TestedIn == registry.TestedInCI {
				tested = "yes, in CI"
			}
		}
		if s.DefaultDisabled {
			on = "no"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | `%s` | %s | %s | %s |\n", id, s.Language, files, strings.TrimSpace(s.Command+" "+strings.Join(s.Args, " ")), install, tested, on)
	}
	return b.String() + "\n", nil
}

// A block is one fenced code block of a Markdown file.
type block struct {
	file string
	line int    // the line of its opening fence
	lang string // the info string's first word
	info []string
	text string
}

func (b block) String() string { return fmt.Sprintf("%s:%d", filepath.Base(b.file), b.line) }

// has reports whether the info string holds word (as "runnable").
func (b block) has(word string) bool { return slices.Contains(b.info, word) }

// exit is the exit status the info string expects ("exit=1"), else 0.
func (b block) exit() int {
	for _, w := range b.info {
		if n, ok := strings.CutPrefix(w, "exit="); ok {
			code, _ := strconv.Atoi(n)
			return code
		}
	}
	return 0
}

// blocks reads the fenced code blocks of a Markdown file.
func blocks(t *testing.T, file string) []block {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []block
	var cur *block
	for i, line := range strings.Split(string(data), "\n") {
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			info := strings.Fields(strings.TrimPrefix(line, "```"))
			cur = &block{file: file, line: i + 1, info: info}
			if len(info) > 0 {
				cur.lang = info[0]
			}
		case cur != nil && strings.TrimSpace(line) == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	if cur != nil {
		t.Errorf("%s: a code block opened at line %d is never closed", file, cur.line)
	}
	return out
}

// TestDocsBlocks: every JSON and TOML block of README.md and docs/
// parses; an lspkit configuration in one is accepted by lspkit with no
// key it does not know; every lspkit command line shown — in a shell
// block, an MCP client's configuration, a hook — names a command and
// flags lspkit has.
func TestDocsBlocks(t *testing.T) {
	t.Parallel()
	lines := 0
	for _, file := range docFiles(t) {
		for _, b := range blocks(t, file) {
			switch b.lang {
			case "json":
				// A block is one JSON value, or several (the params of
				// several calls), each checked.
				dec := jsontext.NewDecoder(strings.NewReader(b.text))
				for {
					v, err := dec.ReadValue()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Errorf("%s: JSON block does not parse: %v", b, err)
						break
					}
					var doc map[string]jsontext.Value
					if json.Unmarshal(v, &doc) != nil {
						continue
					}
					if schema, _ := doc["$schema"]; strings.Contains(string(schema), "opencode.ai") {
						// opencode's own configuration, which lspkit reads
						// as its fallback.
						if _, err := config.ParseOpencode(v, b.String()); err != nil {
							t.Errorf("%s: lspkit refuses this opencode.json: %v", b, err)
						}
					} else if _, ok := doc["lsp"]; ok {
						if _, err := config.Parse(v, b.String()); err != nil {
							t.Errorf("%s: lspkit refuses this configuration: %v", b, err)
						}
						if u := config.UnknownKeys(v); len(u) > 0 {
							t.Errorf("%s: keys lspkit does not know: %v", b, u)
						}
					}
					for _, argv := range lspkitArgvs(doc) {
						lines++
						if err := validCommandLine(argv); err != nil {
							t.Errorf("%s: %v", b, err)
						}
					}
				}
			case "toml":
				doc, err := parseTOML(b.text)
				if err != nil {
					t.Errorf("%s: TOML block does not parse: %v", b, err)
					continue
				}
				for name, server := range tomlTables(doc, "mcp_servers") {
					if server["command"] != "lspkit" {
						continue
					}
					var args []string
					list, _ := server["args"].([]any)
					for _, a := range list {
						if s, ok := a.(string); ok {
							args = append(args, s)
						}
					}
					lines++
					if err := validCommandLine(args); err != nil {
						t.Errorf("%s: mcp_servers.%s: %v", b, name, err)
					}
				}
			case "go":
				// A Go recipe is a compiled example's body (go vet and go
				// test build it): every line of the block is in it.
				example, err := os.ReadFile(filepath.Join(repo, "daemon", "example_test.go"))
				if err != nil {
					t.Fatal(err)
				}
				for _, line := range strings.Split(b.text, "\n") {
					if l := strings.TrimSpace(line); l != "" && !strings.Contains(string(example), l) {
						t.Errorf("%s: Go recipe line %q is not in daemon/example_test.go, which the tests compile", b, l)
					}
				}
			case "sh", "bash":
				for _, argv := range shellLspkitArgvs(b.text) {
					lines++
					if err := validCommandLine(argv); err != nil {
						t.Errorf("%s: %v", b, err)
					}
				}
			}
		}
	}
	if lines < 5 {
		t.Errorf("only %d lspkit command lines found in the docs: the reader is not finding them", lines)
	}
}

// lspkitArgvs finds lspkit's arguments in an MCP client's configuration:
// mcpServers.X.{command, args} (Claude Desktop, Cursor, .mcp.json) and
// mcp.X.command as an array (opencode).
func lspkitArgvs(doc map[string]jsontext.Value) [][]string {
	var out [][]string
	var servers map[string]struct {
		Command jsontext.Value `json:"command"`
		Args    []string       `json:"args"`
	}
	if json.Unmarshal(doc["mcpServers"], &servers) == nil {
		for _, s := range servers {
			var cmd string
			if json.Unmarshal(s.Command, &cmd) == nil && filepath.Base(cmd) == "lspkit" {
				out = append(out, s.Args)
			}
		}
	}
	var oc map[string]struct {
		Command []string `json:"command"`
	}
	if json.Unmarshal(doc["mcp"], &oc) == nil {
		for _, s := range oc {
			if len(s.Command) > 0 && filepath.Base(s.Command[0]) == "lspkit" {
				out = append(out, s.Command[1:])
			}
		}
	}
	var hooks map[string][]struct {
		Hooks []struct {
			Command string `json:"command"`
		} `json:"hooks"`
	}
	if json.Unmarshal(doc["hooks"], &hooks) == nil {
		for _, event := range hooks {
			for _, m := range event {
				for _, h := range m.Hooks {
					out = append(out, shellLspkitArgvs(h.Command)...)
				}
			}
		}
	}
	return out
}

// shellLspkitArgvs finds the lspkit command lines in shell text: the
// words after "lspkit" or "go run ./cmd/lspkit" up to the end of the
// command (a pipe, ;, &&, ||, a redirection or the end of the line;
// backslash-continued lines joined).
func shellLspkitArgvs(text string) [][]string {
	text = strings.ReplaceAll(text, "\\\n", " ")
	var out [][]string
	for _, line := range strings.Split(text, "\n") {
		if i := strings.Index(line, " #"); i >= 0 { // a comment
			line = line[:i]
		}
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		words := shellWords(line)
		for i, w := range words {
			start := -1
			switch {
			case w == "lspkit" || strings.HasSuffix(w, "/bin/lspkit"):
				prev, next := "", ""
				if i > 0 {
					prev = words[i-1]
				}
				if i+1 < len(words) {
					next = words[i+1]
				}
				// Not a server's name before its command (claude mcp add
				// lspkit -- …), an output file or a directory.
				if next != "--" && prev != "-o" && prev != "cd" {
					start = i + 1
				}
			case w == "./cmd/lspkit" && i >= 2 && words[i-1] == "run" && words[i-2] == "go":
				start = i + 1
			}
			if start < 0 {
				continue
			}
			var argv []string
			for _, a := range words[start:] {
				if a == "|" || a == ";" || a == "&&" || a == "||" || strings.HasPrefix(a, ">") || strings.HasPrefix(a, "2>") || a == ")" {
					break
				}
				argv = append(argv, a)
			}
			out = append(out, argv)
			break
		}
	}
	return out
}

// shellWords splits a line into words, honouring single and double quotes
// (no expansion: $VAR stays as written).
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// validCommandLine reports whether argv (after "lspkit") names a command
// lspkit has and flags it accepts.
func validCommandLine(argv []string) error {
	if len(argv) == 0 {
		return fmt.Errorf("lspkit with no command")
	}
	switch argv[0] {
	case "--help", "-h", "help", "--version", "version":
		return nil
	}
	c, ok := lookup(argv[0])
	if !ok || c.hidden {
		return fmt.Errorf("lspkit %s: no such command", argv[0])
	}
	if err := c.flagSet().Parse(argv[1:]); err != nil {
		return fmt.Errorf("lspkit %s: %v", strings.Join(argv, " "), err)
	}
	return nil
}

// parseTOML parses a TOML block (go-toml: any valid TOML).
func parseTOML(text string) (map[string]any, error) {
	doc := map[string]any{}
	if err := toml.Unmarshal([]byte(text), &doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// tomlTables returns the tables under name: mcp_servers.X → X's table.
func tomlTables(doc map[string]any, name string) map[string]map[string]any {
	out := map[string]map[string]any{}
	parent, _ := doc[name].(map[string]any)
	for k, v := range parent {
		if m, ok := v.(map[string]any); ok {
			out[k] = m
		}
	}
	return out
}

// TestDocsRunnable runs every shell block of README.md and docs/ marked
// `sh runnable` with bash, in a scratch copy of the repository's tracked
// files, with the lspkit under test first on PATH and the installed
// servers (and a minute for a server's first file): each must exit as its
// `exit=N` says (0 unless it says).
// `go run ./cmd/lspkit` in a block runs that lspkit (built from this
// checkout), so the test does not compile lspkit a second time.
func TestDocsRunnable(t *testing.T) {
	t.Parallel()
	servertest.Row(t, "gopls") // README's main job: gopls's row in the test command
	var runnable []block
	for _, file := range docFiles(t) {
		for _, b := range blocks(t, file) {
			if b.has("runnable") {
				if b.lang != "sh" {
					t.Errorf("%s: only sh blocks can be runnable, not %q", b, b.lang)
					continue
				}
				runnable = append(runnable, b)
			}
		}
	}
	if len(runnable) < 3 {
		t.Fatalf("only %d runnable blocks: README's main job and the recipes should be", len(runnable))
	}
	scratch := t.TempDir()
	out, err := exec.Command("git", "-C", repo, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src, dst := filepath.Join(repo, name), filepath.Join(scratch, name)
		data, err := os.ReadFile(src)
		if err != nil {
			continue // deleted in the work tree
		}
		info, _ := os.Stat(src)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Dir(lspkitBin)
	// A loaded machine may take longer than the default 10 s for a
	// server's first file: the blocks get a minute (as the live tests do),
	// through the one variable that sets configuration without a file.
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "LSPKIT_LOG=error",
		`LSPKIT_BOOTSTRAP={"config": {"lsp": {"firstTouchTimeout": 60000}}}`)
	for _, b := range runnable {
		t.Run(b.String(), func(t *testing.T) {
			script := strings.ReplaceAll(b.text, "go run ./cmd/lspkit", "lspkit")
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "bash", "-eo", "pipefail", "-c", script)
			cmd.Dir, cmd.Env = scratch, env
			var outb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &outb, &outb
			cmd.WaitDelay = 5 * time.Second
			cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != b.exit() {
				t.Errorf("exit %d, want %d; the block:\n%s\noutput:\n%s", code, b.exit(), b.text, outb.String())
			}
		})
	}
}

// TestHelp: lspkit --help lists every command people run, each with its
// flags as the command declares them, and each command's --help its own
// flags, so the help cannot drift from the flags.
func TestHelp(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, nil, &out, io.Discard); code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	for _, c := range commands() {
		if c.hidden {
			if strings.Contains(out.String(), "lspkit "+c.name) {
				t.Errorf("--help lists the hidden command %s", c.name)
			}
			continue
		}
		if !strings.Contains(out.String(), c.synopsis()) {
			t.Errorf("--help lacks %q", c.synopsis())
		}
		var help bytes.Buffer
		if code := run(context.Background(), []string{c.name, "--help"}, nil, &help, io.Discard); code != 0 {
			t.Errorf("%s --help: exit %d", c.name, code)
		}
		c.flagSet().VisitAll(func(f *flag.Flag) {
			if !strings.Contains(help.String(), "--"+f.Name) {
				t.Errorf("%s --help lacks --%s", c.name, f.Name)
			}
		})
	}
}
