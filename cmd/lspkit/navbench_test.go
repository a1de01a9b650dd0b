//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/internal/servertest"
)

// navTask is an agent's navigation question on chi: a tool call, and the
// LSP request a minimal client would send gopls for the same answer
// (method "" when it takes more than one).
type navTask struct {
	tool       string
	file       string
	line       int
	symbol     string
	extra      map[string]any
	lspMethod  string
	lspContext string // extra params of the LSP request, JSON members
}

var chiTasks = []navTask{
	{tool: "lsp_find_references", file: "context.go", line: 11, symbol: "URLParam", lspMethod: "textDocument/references", lspContext: `,"context":{"includeDeclaration":true}`},
	{tool: "lsp_find_references", file: "chi.go", line: 68, symbol: "Router", lspMethod: "textDocument/references", lspContext: `,"context":{"includeDeclaration":true}`},
	{tool: "lsp_goto_definition", file: "chi.go", line: 63, symbol: "NewMux", lspMethod: "textDocument/definition"},
	{tool: "lsp_goto_definition", file: "mux.go", line: 435, symbol: "routeHTTP", lspMethod: "textDocument/definition"},
	{tool: "lsp_hover", file: "mux.go", line: 63, symbol: "ServeHTTP", lspMethod: "textDocument/hover"},
	{tool: "lsp_goto_implementation", file: "chi.go", line: 68, symbol: "Router", lspMethod: "textDocument/implementation"},
	{tool: "lsp_goto_type_definition", file: "mux.go", line: 63, symbol: "mx", lspMethod: "textDocument/typeDefinition"},
	{tool: "lsp_call_hierarchy", file: "mux.go", line: 447, symbol: "routeHTTP", extra: map[string]any{"direction": "incoming"}},
	{tool: "lsp_call_hierarchy", file: "mux.go", line: 63, symbol: "ServeHTTP", extra: map[string]any{"direction": "outgoing"}},
	{tool: "lsp_document_symbols", file: "context.go", lspMethod: "textDocument/documentSymbol"},
	{tool: "lsp_workspace_symbols", extra: map[string]any{"query": "URLParam"}, lspMethod: "workspace/symbol"},
	{tool: "lsp_rename", file: "mux.go", line: 422, symbol: "handle", extra: map[string]any{"newName": "register"}, lspMethod: "textDocument/rename", lspContext: `,"newName":"register"`},
}

// accuracyProject copies a project of bench/accuracy/testdata into a new
// directory, with a configuration that installs nothing, and returns it.
func accuracyProject(b testing.TB, project string) string {
	b.Helper()
	root := filepath.Join(b.TempDir(), project)
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "..", "bench", "accuracy", "testdata", project))); err != nil {
		b.Fatal(err)
	}
	writeFiles(b, root, map[string]string{"lspkit.json": noInstall("")})
	return root
}

// startMCP starts `lspkit mcp` on root and connects an MCP client to it.
func startMCP(b *testing.B, root string) *mcp.ClientSession {
	b.Helper()
	cmd := exec.Command(lspkitBin, "mcp", "--root", root)
	cmd.Env = append(os.Environ(), "LSPKIT_LOG=error")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return cs
}

var kyTasks = []navTask{
	{tool: "lsp_find_references", file: "source/errors/KyError.ts", line: 8, symbol: "KyError", lspMethod: "textDocument/references", lspContext: `,"context":{"includeDeclaration":true}`},
	{tool: "lsp_find_references", file: "source/utils/merge.ts", line: 64, symbol: "mergeHeaders", lspMethod: "textDocument/references", lspContext: `,"context":{"includeDeclaration":true}`},
	{tool: "lsp_goto_definition", file: "source/core/Ky.ts", line: 217, symbol: "HTTPError", lspMethod: "textDocument/definition"},
	{tool: "lsp_hover", file: "source/core/Ky.ts", line: 152, symbol: "create", lspMethod: "textDocument/hover"},
	{tool: "lsp_goto_implementation", file: "source/errors/KyError.ts", line: 8, symbol: "KyError", lspMethod: "textDocument/implementation"},
	{tool: "lsp_goto_type_definition", file: "source/core/Ky.ts", line: 217, symbol: "httpError", lspMethod: "textDocument/typeDefinition"},
	{tool: "lsp_call_hierarchy", file: "source/utils/merge.ts", line: 323, symbol: "deepMerge", extra: map[string]any{"direction": "incoming"}},
	{tool: "lsp_document_symbols", file: "source/utils/merge.ts", lspMethod: "textDocument/documentSymbol"},
	{tool: "lsp_workspace_symbols", extra: map[string]any{"query": "mergeHeaders"}, lspMethod: "workspace/symbol"},
	{tool: "lsp_rename", file: "source/utils/merge.ts", line: 54, symbol: "validateAndMerge", extra: map[string]any{"newName": "validateMerge"}, lspMethod: "textDocument/rename", lspContext: `,"newName":"validateMerge"`},
}

// BenchmarkNavigation: agents' navigation tasks on real projects (chi with
// gopls, ky with typescript-language-server, from bench/accuracy/testdata)
// through `lspkit mcp` over stdio, warm. For each task with a one-request
// LSP equivalent, the same request is sent to a second server directly on a
// copy of the project (the files opened as the daemon opens them):
// tool-ms against server-ms; overhead-ms is the median of the differences
// (target ≤ 5 ms). text-chars is the median size of the tools' text answers
// (target ≤ 6,000), max-text-chars the largest.
func BenchmarkNavigation(b *testing.B) {
	b.Run("chi-gopls", func(b *testing.B) {
		gopls := servertest.Binary(b, "gopls")
		benchNavigation(b, "chi", "go", chiTasks, func(root string) *rawSession { return newRawSession(b, gopls, root) })
	})
	b.Run("ky-typescript", func(b *testing.B) {
		tsls := servertest.Binary(b, "typescript-language-server")
		benchNavigation(b, "ky", "typescript", kyTasks, func(root string) *rawSession {
			return newRawServer(b, client.Command{Path: tsls, Args: []string{"--stdio"}, Dir: root}, root, `{"tsserver":{"useSyntaxServer":"never"}}`)
		})
	})
}

func benchNavigation(b *testing.B, project, languageID string, tasks []navTask, startRaw func(root string) *rawSession) {
	rootA, rootB := accuracyProject(b, project), accuracyProject(b, project)
	ctx := context.Background()
	cs := startMCP(b, rootA)
	b.Cleanup(func() { cs.Close() })
	raw := startRaw(rootB)
	callTool := func(task navTask) (time.Duration, int) {
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
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: task.tool, Arguments: args})
		took := time.Since(start)
		if err != nil || res.IsError {
			b.Fatalf("%s %v: %v %v", task.tool, args, err, textOf(res))
		}
		return took, len([]rune(textOf(res)))
	}
	callRaw := func(task navTask) time.Duration {
		var params string
		switch {
		case task.lspMethod == "workspace/symbol":
			params = fmt.Sprintf(`{"query":%q}`, task.extra["query"])
		case task.line == 0:
			params = fmt.Sprintf(`{"textDocument":{"uri":"file://%s"}}`, filepath.Join(rootB, task.file))
		default:
			data, err := os.ReadFile(filepath.Join(rootB, task.file))
			if err != nil {
				b.Fatal(err)
			}
			line := strings.Split(string(data), "\n")[task.line-1]
			col := strings.Index(line, task.symbol)
			params = fmt.Sprintf(`{"textDocument":{"uri":"file://%s"},"position":{"line":%d,"character":%d}%s}`, filepath.Join(rootB, task.file), task.line-1, col, task.lspContext)
		}
		start := time.Now()
		if err := raw.conn.Call(ctx, task.lspMethod, []byte(params), nil); err != nil {
			b.Fatalf("%s: %v", task.lspMethod, err)
		}
		return time.Since(start)
	}
	// The daemon opens the files it is asked about: so does the raw client.
	opened := map[string]bool{}
	for _, task := range tasks {
		if task.file == "" || opened[task.file] {
			continue
		}
		opened[task.file] = true
		data, err := os.ReadFile(filepath.Join(rootB, task.file))
		if err != nil {
			b.Fatal(err)
		}
		raw.conn.Notify(ctx, "textDocument/didOpen", []byte(fmt.Sprintf(`{"textDocument":{"uri":"file://%s","languageId":%q,"version":1,"text":%q}}`, filepath.Join(rootB, task.file), languageID, data)))
	}
	for _, task := range tasks { // warm both
		callTool(task)
		if task.lspMethod != "" {
			callRaw(task)
		}
	}
	var tool, server, overhead []time.Duration
	var chars []int
	for b.Loop() {
		for _, task := range tasks {
			took, n := callTool(task)
			chars = append(chars, n)
			if task.lspMethod == "" {
				continue
			}
			direct := callRaw(task)
			tool, server, overhead = append(tool, took), append(server, direct), append(overhead, took-direct)
		}
	}
	b.ReportMetric(medianMS(tool), "tool-ms")
	b.ReportMetric(medianMS(server), "server-ms")
	b.ReportMetric(medianMS(overhead), "overhead-ms")
	slices.Sort(chars)
	b.ReportMetric(float64(chars[len(chars)/2]), "text-chars")
	b.ReportMetric(float64(chars[len(chars)-1]), "max-text-chars")
}

// BenchmarkFirstAnswer: a fresh `lspkit mcp` on a real project, asked for
// references at once (the first task of BenchmarkNavigation): first-ms
// from the daemon's start to the answer, which must be the complete one
// (the warm answer's size). raw-ms is a minimal client doing the least a
// complete answer takes: start the server, initialize, open the file, wait
// for its diagnostics (the project loaded), ask. Target: first ≤ server
// start + project load + one answer, i.e. ratio ≈ 1.
func BenchmarkFirstAnswer(b *testing.B) {
	b.Run("chi-gopls", func(b *testing.B) {
		gopls := servertest.Binary(b, "gopls")
		benchFirstAnswer(b, "chi", "go", chiTasks[0], func(root string) *rawSession { return newRawSession(b, gopls, root) })
	})
	b.Run("ky-typescript", func(b *testing.B) {
		tsls := servertest.Binary(b, "typescript-language-server")
		benchFirstAnswer(b, "ky", "typescript", kyTasks[0], func(root string) *rawSession {
			return newRawServer(b, client.Command{Path: tsls, Args: []string{"--stdio"}, Dir: root}, root, `{"tsserver":{"useSyntaxServer":"never"}}`)
		})
	})
}

func benchFirstAnswer(b *testing.B, project, languageID string, task navTask, startRaw func(root string) *rawSession) {
	ctx := context.Background()
	args := map[string]any{"file": task.file, "line": task.line, "symbol": task.symbol}
	var first, raw []time.Duration
	want := -1
	for b.Loop() {
		root := accuracyProject(b, project)
		start := time.Now()
		cs := startMCP(b, root)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: task.tool, Arguments: args})
		took := time.Since(start)
		if err != nil || res.IsError {
			b.Fatalf("%v %s", err, textOf(res))
		}
		firstText := textOf(res)
		again, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: task.tool, Arguments: args})
		if err != nil || textOf(again) != firstText {
			b.Fatalf("the first answer is not the complete one:\nfirst:\n%s\nthen:\n%s", firstText, textOf(again))
		}
		if want >= 0 && strings.Count(firstText, "\n") != want {
			b.Fatalf("answers differ between runs: %d lines, then %d", want, strings.Count(firstText, "\n"))
		}
		want = strings.Count(firstText, "\n")
		cs.Close()
		first = append(first, took)

		rawRoot := accuracyProject(b, project)
		start = time.Now()
		s := startRaw(rawRoot)
		data, err := os.ReadFile(filepath.Join(rawRoot, task.file))
		if err != nil {
			b.Fatal(err)
		}
		uri := "file://" + filepath.Join(rawRoot, task.file)
		s.conn.Notify(ctx, "textDocument/didOpen", []byte(fmt.Sprintf(`{"textDocument":{"uri":%q,"languageId":%q,"version":1,"text":%q}}`, uri, languageID, data)))
		<-s.published
		line := strings.Split(string(data), "\n")[task.line-1]
		params := fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":%d,"character":%d}%s}`, uri, task.line-1, strings.Index(line, task.symbol), task.lspContext)
		var locs []any
		if err := s.conn.Call(ctx, task.lspMethod, []byte(params), &locs); err != nil {
			b.Fatal(err)
		}
		raw = append(raw, time.Since(start))
		if len(locs) != want-strings.Count(firstText, "… and") {
			b.Logf("raw client's answer: %d locations; lspkit's: %d lines", len(locs), want)
		}
		s.conn.Close()
		s.proc.Stop(time.Second)
	}
	b.ReportMetric(medianMS(first), "first-ms")
	b.ReportMetric(medianMS(raw), "raw-ms")
	b.ReportMetric(medianMS(first)/medianMS(raw), "ratio")
}
