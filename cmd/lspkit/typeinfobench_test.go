//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/transport"
)

// typeInfoTask is a question of the type-information tools (or one asked
// by name) and the requests a minimal client sends its server for the
// same answer, one after another.
type typeInfoTask struct {
	name string
	tool string
	args map[string]any
	raw  []rawRequest
}

// rawRequest is one LSP request of a task's raw equivalent: params with
// $ROOT for the project's root.
type rawRequest struct {
	method, params string
	// then, when set, makes the next request's params from this one's
	// answer (a type-hierarchy item).
	then func(answer jsontext.Value) string
}

// position is an LSP position request's params: the 0-based line and
// the column of the first sub on it (plus off).
func position(b *testing.B, root, file string, line int, sub string, off int) string {
	b.Helper()
	data, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Split(string(data), "\n")[line-1]
	col := strings.Index(text, sub)
	if col < 0 {
		b.Fatalf("%q not on %s:%d", sub, file, line)
	}
	return fmt.Sprintf(`{"textDocument":{"uri":"file://$ROOT/%s"},"position":{"line":%d,"character":%d}`, file, line-1, col+off)
}

// chiTypeInfo are the tasks on chi; b and root give the positions.
func chiTypeInfo(b *testing.B, root string) []typeInfoTask {
	at := func(line int, sub string, off int) string { return position(b, root, "mux.go", line, sub, off) }
	return []typeInfoTask{
		{name: "highlights", tool: "lsp_document_highlights", args: map[string]any{"file": "mux.go", "line": 63, "symbol": "mx"},
			raw: []rawRequest{{method: "textDocument/documentHighlight", params: at(63, "mx", 0) + "}"}}},
		{name: "signature", tool: "lsp_signature_help", args: map[string]any{"file": "mux.go", "line": 87, "symbol": "RouteCtxKey"},
			raw: []rawRequest{{method: "textDocument/signatureHelp", params: at(87, "RouteCtxKey", 0) + `,"context":{"triggerKind":1,"isRetrigger":false}}`}}},
		{name: "inlay", tool: "lsp_inlay_hints", args: map[string]any{"file": "mux.go", "startLine": 63, "endLine": 95},
			raw: []rawRequest{{method: "textDocument/inlayHint", params: `{"textDocument":{"uri":"file://$ROOT/mux.go"},"range":{"start":{"line":62,"character":0},"end":{"line":94,"character":2}}}`}}},
		{name: "completion", tool: "lsp_completion", args: map[string]any{"file": "mux.go", "line": 82, "character": 7},
			raw: []rawRequest{{method: "textDocument/completion", params: `{"textDocument":{"uri":"file://$ROOT/mux.go"},"position":{"line":81,"character":6},"context":{"triggerKind":1}}`}}},
		{name: "subtypes", tool: "lsp_type_hierarchy", args: map[string]any{"file": "chi.go", "line": 68, "symbol": "Router", "direction": "subtypes"},
			raw: []rawRequest{{method: "textDocument/prepareTypeHierarchy", params: position(b, root, "chi.go", 68, "Router", 0) + "}", then: firstItem},
				{method: "typeHierarchy/subtypes"}}},
		{name: "by-name", tool: "lsp_goto_definition", args: map[string]any{"symbol": "NewRouteContext"},
			raw: []rawRequest{{method: "workspace/symbol", params: `{"query":"NewRouteContext"}`},
				{method: "textDocument/definition", params: position(b, root, "context.go", 34, "NewRouteContext", 0) + "}"}}},
		{name: "dotted", tool: "lsp_goto_definition", args: map[string]any{"symbol": "Mux.ServeHTTP"},
			raw: []rawRequest{{method: "workspace/symbol", params: `{"query":"ServeHTTP"}`},
				{method: "textDocument/documentSymbol", params: `{"textDocument":{"uri":"file://$ROOT/mux.go"}}`},
				{method: "textDocument/definition", params: at(63, "ServeHTTP", 0) + "}"}}},
	}
}

// kyTypeInfo are the tasks on ky.
func kyTypeInfo(b *testing.B, root string) []typeInfoTask {
	const merge = "source/utils/merge.ts"
	at := func(line int, sub string, off int) string { return position(b, root, merge, line, sub, off) }
	return []typeInfoTask{
		{name: "highlights", tool: "lsp_document_highlights", args: map[string]any{"file": merge, "line": 64, "symbol": "mergeHeaders"},
			raw: []rawRequest{{method: "textDocument/documentHighlight", params: at(64, "mergeHeaders", 0) + "}"}}},
		{name: "signature", tool: "lsp_signature_help", args: map[string]any{"file": merge, "line": 127, "symbol": "source2"},
			raw: []rawRequest{{method: "textDocument/signatureHelp", params: at(127, "source2", 0) + `,"context":{"triggerKind":1,"isRetrigger":false}}`}}},
		{name: "inlay", tool: "lsp_inlay_hints", args: map[string]any{"file": merge, "startLine": 54, "endLine": 90},
			raw: []rawRequest{{method: "textDocument/inlayHint", params: `{"textDocument":{"uri":"file://$ROOT/` + merge + `"},"range":{"start":{"line":53,"character":0},"end":{"line":89,"character":0}}}`}}},
		{name: "completion", tool: "lsp_completion", args: map[string]any{"file": merge, "line": 61, "symbol": "deepMerge"},
			raw: []rawRequest{{method: "textDocument/completion", params: at(61, "deepMerge", 0) + `,"context":{"triggerKind":1}}`}}},
		{name: "by-name", tool: "lsp_goto_definition", args: map[string]any{"symbol": "mergeHeaders"},
			raw: []rawRequest{{method: "workspace/symbol", params: `{"query":"mergeHeaders"}`},
				{method: "textDocument/definition", params: at(64, "mergeHeaders", 0) + "}"}}},
	}
}

// firstItem is the params of a type-hierarchy request for the first item
// of a prepare answer.
func firstItem(answer jsontext.Value) string {
	s := strings.TrimSpace(string(answer))
	if !strings.HasPrefix(s, "[") || s == "[]" {
		return `{"item":null}`
	}
	dec := jsontext.NewDecoder(strings.NewReader(s))
	dec.ReadToken() // [
	item, _ := dec.ReadValue()
	return `{"item":` + string(item) + `}`
}

// BenchmarkTypeInfo: the type-information tools and addressing by name on
// real projects (chi with gopls, ky with typescript-language-server)
// through `lspkit mcp` over stdio, warm, against a second server of the
// same settings driven directly with the requests the same answer takes:
// overhead-ms is the median difference per task (target ≤ 1 ms); each
// task's own medians are reported as NAME-tool-ms and NAME-server-ms.
func BenchmarkTypeInfo(b *testing.B) {
	b.Run("chi-gopls", func(b *testing.B) {
		gopls := servertest.Binary(b, "gopls")
		benchTypeInfo(b, "chi", "go", chiTypeInfo, func(root string) *rawSession {
			return newConfiguredServer(b, client.Command{Path: gopls, Dir: root}, root, "", `{"hints":{"assignVariableTypes":true,"compositeLiteralFields":true,"constantValues":true,"functionTypeParameters":true,"parameterNames":true,"rangeVariableTypes":true}}`, "")
		})
	})
	b.Run("ky-typescript", func(b *testing.B) {
		tsls := servertest.Binary(b, "typescript-language-server")
		hints := `{"includeInlayParameterNameHints":"all","includeInlayVariableTypeHints":true,"includeInlayFunctionLikeReturnTypeHints":true,"includeInlayPropertyDeclarationTypeHints":true,"includeInlayEnumMemberValueHints":true}`
		benchTypeInfo(b, "ky", "typescript", kyTypeInfo, func(root string) *rawSession {
			return newConfiguredServer(b, client.Command{Path: tsls, Args: []string{"--stdio"}, Dir: root}, root, `{"tsserver":{"useSyntaxServer":"never"}}`, "null",
				`{"typescript":{"inlayHints":`+hints+`},"javascript":{"inlayHints":`+hints+`}}`)
		})
	})
}

// newConfiguredServer is newRawServer answering workspace/configuration
// with item for each section asked, and sending settings (when given) in
// workspace/didChangeConfiguration; its client capabilities are lspkit's.
func newConfiguredServer(b *testing.B, cmd client.Command, root, initOptions, item, settings string) *rawSession {
	proc, err := client.StartProcess(cmd)
	if err != nil {
		b.Fatal(err)
	}
	s := &rawSession{published: make(chan int, 1024), proc: proc}
	s.conn = transport.NewConn(proc.Stdio(), transport.Options{Handler: transport.HandlerFunc(func(_ context.Context, req *transport.Request) (any, error) {
		if req.Method == "workspace/configuration" {
			n := strings.Count(string(req.Params), `"section"`)
			items := make([]jsontext.Value, max(n, 1))
			for i := range items {
				items[i] = jsontext.Value(item)
			}
			return items, nil
		}
		return nil, nil
	})})
	b.Cleanup(func() { s.conn.Close(); proc.Stop(time.Second) })
	ctx := context.Background()
	caps, err := json.Marshal(client.Capabilities())
	if err != nil {
		b.Fatal(err)
	}
	opts := ""
	if initOptions != "" {
		opts = `,"initializationOptions":` + initOptions
	}
	init := fmt.Sprintf(`{"processId":%d,"rootUri":"file://%s","capabilities":%s,"workspaceFolders":[{"uri":"file://%s","name":"ws"}]%s}`, os.Getpid(), root, caps, root, opts)
	if err := s.conn.Call(ctx, "initialize", []byte(init), nil); err != nil {
		b.Fatal(err)
	}
	s.conn.Notify(ctx, "initialized", []byte(`{}`))
	if settings != "" {
		s.conn.Notify(ctx, "workspace/didChangeConfiguration", []byte(`{"settings":`+settings+`}`))
	}
	return s
}

func benchTypeInfo(b *testing.B, project, languageID string, tasksOf func(*testing.B, string) []typeInfoTask, startRaw func(root string) *rawSession) {
	rootA, rootB := accuracyProject(b, project), accuracyProject(b, project)
	tasks := tasksOf(b, rootB)
	ctx := context.Background()
	cs := startMCP(b, rootA)
	b.Cleanup(func() { cs.Close() })
	raw := startRaw(rootB)
	callTool := func(task typeInfoTask) time.Duration {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: task.tool, Arguments: task.args})
		took := time.Since(start)
		if err != nil || res.IsError {
			b.Fatalf("%s %v: %v %v", task.tool, task.args, err, textOf(res))
		}
		return took
	}
	callRaw := func(task typeInfoTask) time.Duration {
		start := time.Now()
		next := ""
		for _, r := range task.raw {
			params := r.params
			if params == "" {
				params = next
			}
			var answer jsontext.Value
			if err := raw.conn.Call(ctx, r.method, []byte(strings.ReplaceAll(params, "$ROOT", rootB)), &answer); err != nil {
				b.Fatalf("%s %s: %v", r.method, params, err)
			}
			if r.then != nil {
				next = r.then(answer)
			}
		}
		return time.Since(start)
	}
	// The daemon opens the files it is asked about: so does the raw
	// client, and waits for the project as the daemon does.
	for _, f := range []string{"mux.go", "chi.go", "context.go", "source/utils/merge.ts"} {
		data, err := os.ReadFile(filepath.Join(rootB, f))
		if err != nil {
			continue
		}
		raw.conn.Notify(ctx, "textDocument/didOpen", []byte(fmt.Sprintf(`{"textDocument":{"uri":"file://%s","languageId":%q,"version":1,"text":%q}}`, filepath.Join(rootB, f), languageID, data)))
	}
	for range 3 { // warm both
		for _, task := range tasks {
			callTool(task)
			callRaw(task)
		}
	}
	tool := map[string][]time.Duration{}
	server := map[string][]time.Duration{}
	var overhead []time.Duration
	for b.Loop() {
		for _, task := range tasks {
			t, r := callTool(task), callRaw(task)
			tool[task.name], server[task.name] = append(tool[task.name], t), append(server[task.name], r)
			overhead = append(overhead, t-r)
		}
	}
	for _, task := range tasks {
		b.ReportMetric(medianMS(tool[task.name]), task.name+"-tool-ms")
		b.ReportMetric(medianMS(server[task.name]), task.name+"-server-ms")
	}
	b.ReportMetric(medianMS(overhead), "overhead-ms")
}

// BenchmarkBatchAndContext: on chi with gopls, warm, through `lspkit
// mcp`: a batch of 10 questions against the slowest of them asked alone
// (batch-ratio, target ≤ 1.2), and lsp_symbol_context against the slowest
// of its parts asked alone — definition, hover, references, incoming
// calls (context-ratio, target ≤ 1.5).
func BenchmarkBatchAndContext(b *testing.B) {
	servertest.Binary(b, "gopls")
	root := accuracyProject(b, "chi")
	ctx := context.Background()
	cs := startMCP(b, root)
	b.Cleanup(func() { cs.Close() })
	ask := func(tool string, args map[string]any) time.Duration {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		took := time.Since(start)
		if err != nil || res.IsError {
			b.Fatalf("%s %v: %v %v", tool, args, err, textOf(res))
		}
		return took
	}
	questions := []map[string]any{}
	for _, task := range chiTasks[:9] {
		if task.tool == "lsp_rename" || task.tool == "lsp_workspace_symbols" {
			continue
		}
		args := map[string]any{"file": task.file}
		if task.line > 0 {
			args["line"], args["symbol"] = task.line, task.symbol
		}
		for k, v := range task.extra {
			args[k] = v
		}
		questions = append(questions, map[string]any{"tool": task.tool, "args": args})
	}
	questions = append(questions, map[string]any{"tool": "lsp_document_highlights", "args": map[string]any{"file": "mux.go", "line": 63, "symbol": "mx"}},
		map[string]any{"tool": "lsp_signature_help", "args": map[string]any{"file": "mux.go", "line": 87, "symbol": "RouteCtxKey"}})
	questions = questions[:10]
	at := map[string]any{"file": "context.go", "line": 34, "symbol": "NewRouteContext"}
	parts := []struct {
		tool string
		args map[string]any
	}{{"lsp_goto_definition", at}, {"lsp_hover", at}, {"lsp_find_references", at}, {"lsp_call_hierarchy", map[string]any{"file": "context.go", "line": 34, "symbol": "NewRouteContext", "direction": "incoming"}}}
	batchArgs := map[string]any{"questions": questions}
	for range 3 { // warm
		ask("lsp_batch", batchArgs)
		ask("lsp_symbol_context", at)
	}
	var batch, slowest, sum, whole, slowestPart []time.Duration
	partTimes := make([][]time.Duration, len(parts))
	for b.Loop() {
		batch = append(batch, ask("lsp_batch", batchArgs))
		var worst, all time.Duration
		for _, q := range questions {
			took := ask(q["tool"].(string), q["args"].(map[string]any))
			worst, all = max(worst, took), all+took
		}
		slowest, sum = append(slowest, worst), append(sum, all)
		whole = append(whole, ask("lsp_symbol_context", at))
		worst = 0
		for i, p := range parts {
			took := ask(p.tool, p.args)
			partTimes[i] = append(partTimes[i], took)
			worst = max(worst, took)
		}
		slowestPart = append(slowestPart, worst)
	}
	b.ReportMetric(medianMS(batch), "batch-ms")
	b.ReportMetric(medianMS(slowest), "slowest-alone-ms")
	b.ReportMetric(medianMS(sum), "sum-alone-ms")
	b.ReportMetric(medianMS(batch)/medianMS(slowest), "batch-ratio")
	b.ReportMetric(medianMS(whole), "context-ms")
	for i, p := range parts {
		b.ReportMetric(medianMS(partTimes[i]), p.tool+"-ms")
	}
	b.ReportMetric(medianMS(slowestPart), "slowest-part-ms")
	b.ReportMetric(medianMS(whole)/medianMS(slowestPart), "context-ratio")
}
