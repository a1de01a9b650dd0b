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

// copyTree copies the directory src to dst.
func copyTree(tb testing.TB, src, dst string) {
	tb.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkNavigation: agents' navigation tasks on a real project (chi, from
// bench/accuracy/testdata) through `lspkit mcp` over stdio, warm. For each
// task with a one-request LSP equivalent, the same request is sent to a
// second gopls directly on a copy of the project: tool-ms against
// server-ms, overhead-ms is the median of the differences (target ≤ 5 ms).
// text-chars is the median size of the tools' text answers (target ≤
// 6,000), max-text-chars the largest.
func BenchmarkNavigation(b *testing.B) {
	gopls := servertest.Binary(b, "gopls")
	src, err := filepath.Abs(filepath.Join("..", "..", "bench", "accuracy", "testdata", "chi"))
	if err != nil {
		b.Fatal(err)
	}
	rootA, rootB := filepath.Join(b.TempDir(), "chi"), filepath.Join(b.TempDir(), "chi")
	copyTree(b, src, rootA)
	copyTree(b, src, rootB)
	writeFiles(b, rootA, map[string]string{"lspkit.json": noInstall("")})
	ctx := context.Background()
	cmd := exec.Command(lspkitBin, "mcp", "--root", rootA)
	cmd.Env = append(os.Environ(), "LSPKIT_LOG=error")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	raw := newRawSession(b, gopls, rootB)
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
	for _, task := range chiTasks {
		if task.file == "" || opened[task.file] {
			continue
		}
		opened[task.file] = true
		data, err := os.ReadFile(filepath.Join(rootB, task.file))
		if err != nil {
			b.Fatal(err)
		}
		raw.conn.Notify(ctx, "textDocument/didOpen", []byte(fmt.Sprintf(`{"textDocument":{"uri":"file://%s","languageId":"go","version":1,"text":%q}}`, filepath.Join(rootB, task.file), data)))
	}
	for _, task := range chiTasks { // warm both
		callTool(task)
		if task.lspMethod != "" {
			callRaw(task)
		}
	}
	var tool, server, overhead []time.Duration
	var chars []int
	for b.Loop() {
		for _, task := range chiTasks {
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
