//go:build linux

package main

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspkit/lspkit/internal/servertest"
)

// sizeTasks are navigation and diagnostics questions an agent asks on chi
// (gopls) and ky (typescript-language-server), the projects of
// bench/accuracy/testdata: BenchmarkNavigation's tasks less the rename
// (a diff, the same in either form), and more.
var sizeTasks = map[string][]navTask{
	"chi": append(slices.DeleteFunc(slices.Clone(chiTasks), func(t navTask) bool { return t.tool == "lsp_rename" }),
		navTask{tool: "lsp_find_references", file: "context.go", line: 34, symbol: "NewRouteContext"},
		navTask{tool: "lsp_find_references", file: "chi.go", line: 140, symbol: "Middlewares"},
		navTask{tool: "lsp_call_hierarchy", file: "context.go", line: 85, symbol: "Reset", extra: map[string]any{"direction": "incoming"}},
		navTask{tool: "lsp_document_symbols", file: "mux.go"},
		navTask{tool: "lsp_workspace_symbols", extra: map[string]any{"query": "Route"}},
	),
	"ky": append(slices.DeleteFunc(slices.Clone(kyTasks), func(t navTask) bool { return t.tool == "lsp_rename" }),
		navTask{tool: "lsp_find_references", file: "source/utils/delay.ts", line: 9, symbol: "delay"},
		navTask{tool: "lsp_find_references", file: "source/core/Ky.ts", line: 151, symbol: "Ky"},
		navTask{tool: "lsp_document_symbols", file: "source/core/Ky.ts"},
		navTask{tool: "lsp_check_file", file: "source/utils/normalize.ts"},
		navTask{tool: "lsp_workspace_diagnostics"},
	),
}

// placeRE finds a place in a text: "file:line:col" of the long form, or a
// compact line's "file: line:col …" whose further places follow it.
var (
	longPlace    = regexp.MustCompile(`(?m)^\s*([\w./-]+\.(?:go|ts)):(\d+):(\d+)`)
	compactFile  = regexp.MustCompile(`(?m)^([\w./-]+\.(?:go|ts)):(.*)$`)
	compactPlace = regexp.MustCompile(`(?:^|[ ;])(\d+):(\d+)\b`)
)

// placesIn reads back every "file:line:col" a text names, in either form.
func placesIn(text string) []string {
	var out []string
	for _, m := range longPlace.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1]+":"+m[2]+":"+m[3])
	}
	file := ""
	for _, line := range strings.Split(text, "\n") {
		if m := compactFile.FindStringSubmatch(line); m != nil {
			file = m[1]
			for _, p := range compactPlace.FindAllStringSubmatch(m[2], -1) {
				out = append(out, file+":"+p[1]+":"+p[2])
			}
			continue
		}
		if file != "" && strings.HasPrefix(line, "  ") {
			if p := compactPlace.FindStringSubmatch(strings.TrimSpace(line)); p != nil {
				out = append(out, file+":"+p[1]+":"+p[2])
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestAnswerSizes: the same 30 questions on chi and ky asked of `lspkit
// mcp --format long` (the text before this round) and of the compact
// default: compact answers total at most 0.6× the long ones, and every
// place a long answer names (file, line and column) can be read back from
// the compact one.
func TestAnswerSizes(t *testing.T) {
	servertest.Binary(t, "gopls")
	servertest.Binary(t, "typescript-language-server")
	total := map[string]int{}
	tasks := 0
	for _, project := range []string{"chi", "ky"} {
		root := accuracyProject(t, project)
		sessions := map[string]*mcp.ClientSession{}
		for _, format := range []string{"long", "compact"} {
			cmd := exec.Command(lspkitBin, "mcp", "--root", root, "--format", format)
			cmd.Env = append(os.Environ(), "LSPKIT_LOG=error")
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "size", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })
			sessions[format] = cs
		}
		for _, task := range sizeTasks[project] {
			args := map[string]any{}
			if task.file != "" {
				args["file"] = task.file
			}
			if task.line > 0 {
				args["line"], args["symbol"] = task.line, task.symbol
			}
			for k, v := range task.extra {
				args[k] = v
			}
			texts := map[string]string{}
			for _, format := range []string{"long", "compact"} {
				res, err := sessions[format].CallTool(context.Background(), &mcp.CallToolParams{Name: task.tool, Arguments: args})
				if err != nil || res.IsError {
					t.Fatalf("%s %s %v: %v %+v", project, task.tool, args, err, res)
				}
				texts[format] = res.Content[0].(*mcp.TextContent).Text
				total[format] += len([]rune(texts[format]))
			}
			tasks++
			t.Logf("%s %s %v: long %d, compact %d", project, task.tool, args, len([]rune(texts["long"])), len([]rune(texts["compact"])))
			long, compact := placesIn(texts["long"]), placesIn(texts["compact"])
			for _, p := range long {
				if !slices.Contains(compact, p) {
					t.Errorf("%s %s %v: the compact answer does not name %s\nlong:\n%s\ncompact:\n%s", project, task.tool, args, p, texts["long"], texts["compact"])
					break
				}
			}
		}
	}
	ratio := float64(total["compact"]) / float64(total["long"])
	t.Logf("%d questions: long %d characters, compact %d: %.2f×", tasks, total["long"], total["compact"], ratio)
	if tasks != 30 || ratio > 0.6 {
		t.Errorf("%d questions, compact %.2f× long: want 30, at most 0.6×", tasks, ratio)
	}
}
