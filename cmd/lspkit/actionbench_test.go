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
	"unicode/utf16"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/internal/servertest"
)

// actionLine is a line an agent asks for code actions on.
type actionLine struct {
	file string
	line int
}

// BenchmarkCodeActions: warm lsp_code_actions on whole lines of real
// projects (chi with gopls, ky with typescript-language-server) through
// `lspkit mcp` over stdio, against the same textDocument/codeAction
// request (the line's range, lspkit's client capabilities) sent to a
// second server directly: tool-ms against server-ms; overhead-ms is the
// median of the differences (target ≤ 2 ms).
func BenchmarkCodeActions(b *testing.B) {
	b.Run("chi-gopls", func(b *testing.B) {
		gopls := servertest.Binary(b, "gopls")
		benchCodeActions(b, "chi", "go", []actionLine{{"mux.go", 63}, {"chi.go", 68}, {"context.go", 11}, {"mux.go", 435}},
			func(root string) *rawSession { return newRawSession(b, gopls, root) })
	})
	b.Run("ky-typescript", func(b *testing.B) {
		tsls := servertest.Binary(b, "typescript-language-server")
		benchCodeActions(b, "ky", "typescript", []actionLine{{"source/core/Ky.ts", 152}, {"source/core/Ky.ts", 217}, {"source/utils/merge.ts", 64}},
			func(root string) *rawSession {
				return newRawServer(b, client.Command{Path: tsls, Args: []string{"--stdio"}, Dir: root}, root, `{"tsserver":{"useSyntaxServer":"never"}}`)
			})
	})
}

func benchCodeActions(b *testing.B, project, languageID string, lines []actionLine, startRaw func(root string) *rawSession) {
	rootA, rootB := accuracyProject(b, project), accuracyProject(b, project)
	ctx := context.Background()
	cs := startMCP(b, rootA)
	b.Cleanup(func() { cs.Close() })
	raw := startRaw(rootB)
	texts := map[string]string{}
	for _, l := range lines {
		if _, ok := texts[l.file]; ok {
			continue
		}
		data, err := os.ReadFile(filepath.Join(rootB, l.file))
		if err != nil {
			b.Fatal(err)
		}
		texts[l.file] = string(data)
		raw.conn.Notify(ctx, "textDocument/didOpen", []byte(fmt.Sprintf(`{"textDocument":{"uri":"file://%s","languageId":%q,"version":1,"text":%q}}`, filepath.Join(rootB, l.file), languageID, data)))
	}
	callTool := func(l actionLine) (time.Duration, string) {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lsp_code_actions", Arguments: map[string]any{"file": l.file, "line": l.line}})
		took := time.Since(start)
		if err != nil || res.IsError {
			b.Fatalf("lsp_code_actions %+v: %v %s", l, err, textOf(res))
		}
		return took, textOf(res)
	}
	callRaw := func(l actionLine) (time.Duration, int) {
		line := strings.Split(texts[l.file], "\n")[l.line-1]
		params := fmt.Sprintf(`{"textDocument":{"uri":"file://%s"},"range":{"start":{"line":%d,"character":0},"end":{"line":%d,"character":%d}},"context":{"diagnostics":[]}}`,
			filepath.Join(rootB, l.file), l.line-1, l.line-1, len(utf16.Encode([]rune(line))))
		var actions []map[string]any
		start := time.Now()
		if err := raw.conn.Call(ctx, "textDocument/codeAction", []byte(params), &actions); err != nil {
			b.Fatalf("textDocument/codeAction: %v", err)
		}
		return time.Since(start), len(actions)
	}
	for _, l := range lines { // warm both
		_, text := callTool(l)
		_, n := callRaw(l)
		b.Logf("%s:%d: the server offers %d actions; lspkit says:\n%s", l.file, l.line, n, text)
	}
	var tool, server, overhead []time.Duration
	for b.Loop() {
		for _, l := range lines {
			took, _ := callTool(l)
			direct, _ := callRaw(l)
			tool, server, overhead = append(tool, took), append(server, direct), append(overhead, took-direct)
		}
	}
	b.ReportMetric(medianMS(tool), "tool-ms")
	b.ReportMetric(medianMS(server), "server-ms")
	b.ReportMetric(medianMS(overhead), "overhead-ms")
}
