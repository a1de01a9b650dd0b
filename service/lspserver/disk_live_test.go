package lspserver_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/service/lspserver"
	"github.com/lspkit/lspkit/service/orchestrator"
	"github.com/lspkit/lspkit/transport"
)

// A diskCase is a project whose open file uses a function another file
// defines, and that other file as another process rewrites it, round by
// round: the function moves (its definition's line), gains callers (its
// references) and, every other round, changes its result's type so that
// the open file has an error.
type diskCase struct {
	name, binary string
	servers      []string
	files        map[string]string // written once
	open         string            // the client's document, never changed by the client
	openText     string
	languageID   string
	lib          string                    // the file rewritten on disk
	libText      func(round int) string    // its text in a round
	useAt        [2]int                    // the call in the open file (line, character)
	declLine     func(round int) int       // the function's line in lib
	references   func(round int) int       // its references, declaration included
	broken       func(diags []string) bool // the open file's findings say the result's type is wrong
	brokenRound  func(round int) bool      // the rounds whose lib breaks the open file
}

func goLib(round int) string {
	var b strings.Builder
	b.WriteString("package lib\n\n")
	for range round % 4 { // the function moves down
		b.WriteString("// padding\n")
	}
	typ, val := "int", "1"
	if round%2 == 1 {
		typ, val = "string", `"s"`
	}
	fmt.Fprintf(&b, "func Value() %s { return %s }\n", typ, val)
	for i := range round % 3 {
		fmt.Fprintf(&b, "\nfunc caller%d() { _ = Value() }\n", i)
	}
	return b.String()
}

func tsLib(round int) string {
	var b strings.Builder
	for range round % 4 {
		b.WriteString("// padding\n")
	}
	typ, val := "number", "1"
	if round%2 == 1 {
		typ, val = "string", `"s"`
	}
	fmt.Fprintf(&b, "export function value(): %s { return %s; }\n", typ, val)
	for i := range round % 3 {
		fmt.Fprintf(&b, "\nexport function caller%d(): void { value(); }\n", i)
	}
	return b.String()
}

// TestLSPFollowsDiskLive: through lspkit lsp, a file another process
// rewrites between two requests is answered as it is on disk — definition
// (the function moved), references (callers added and removed) — and the
// client's open document that uses it is checked again and republished
// (an error when the function's result no longer fits, none when it
// does), 50 rounds, on gopls and on typescript-language-server.
// LSPKIT_LSP_LIVE=1 (.ci/run) runs it.
func TestLSPFollowsDiskLive(t *testing.T) {
	if os.Getenv("LSPKIT_LSP_LIVE") == "" {
		t.Skip("LSPKIT_LSP_LIVE=1 runs it (.ci/run's lspkit lsp step)")
	}
	rounds := 50
	for _, tc := range []diskCase{{
		name: "gopls", binary: "gopls", servers: []string{"gopls"},
		files: map[string]string{"go.mod": "module example.com/demo\n\ngo 1.22\n"},
		open:  "main.go", languageID: "go",
		openText: "package main\n\nimport \"example.com/demo/lib\"\n\nfunc main() {\n\tvar n int = lib.Value()\n\tprintln(n)\n}\n",
		lib:      "lib/lib.go", libText: goLib, useAt: [2]int{5, 17},
		declLine:    func(r int) int { return 2 + r%4 },
		references:  func(r int) int { return 2 + r%3 },
		broken:      func(ds []string) bool { return len(ds) == 1 && strings.Contains(ds[0], "cannot use lib.Value()") },
		brokenRound: func(r int) bool { return r%2 == 1 },
	}, {
		name: "typescript", binary: "typescript-language-server", servers: []string{"typescript"},
		files: map[string]string{"package.json": `{"name": "demo", "private": true}`, "tsconfig.json": `{"compilerOptions": {"strict": true}}`},
		open:  "main.ts", languageID: "typescript",
		openText: "import { value } from \"./lib\";\n\nconst n: number = value();\nconsole.log(n);\n",
		lib:      "lib.ts", libText: tsLib, useAt: [2]int{2, 19},
		declLine:   func(r int) int { return r % 4 },
		references: func(r int) int { return 3 + r%3 }, // the import, the call, the declaration, the callers
		broken: func(ds []string) bool {
			return len(ds) == 1 && strings.Contains(ds[0], "not assignable to type 'number'")
		},
		brokenRound: func(r int) bool { return r%2 == 1 },
	}} {
		t.Run(tc.name, func(t *testing.T) {
			servertest.Binary(t, tc.binary)
			e, root := startLive(t, tc, rounds)
			uri, _ := protocol.FileURI(filepath.Join(root, tc.open))
			libURI, _ := protocol.FileURI(filepath.Join(root, tc.lib))
			if _, err := e.call(t, protocol.InitializeRequest.Method(), map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}); err != nil {
				t.Fatal(err)
			}
			e.notify(t, protocol.InitializedNotification.Method(), map[string]any{})
			e.notify(t, protocol.DidOpenTextDocumentNotification.Method(), map[string]any{"textDocument": map[string]any{
				"uri": uri, "languageId": tc.languageID, "version": 1, "text": tc.openText}})
			at := map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": tc.useAt[0], "character": tc.useAt[1]}}
			for round := range rounds {
				// Another process rewrites lib (round 0: the text the
				// project started with).
				if round > 0 {
					if err := os.WriteFile(filepath.Join(root, tc.lib), []byte(tc.libText(round)), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				e.mu.Lock()
				seen := len(e.diags[uri])
				e.mu.Unlock()

				res, err := e.call(t, protocol.DefinitionRequest.Method(), at)
				var locs []protocol.Location
				if err == nil {
					// Locations or links (typescript-language-server's).
					var raw []struct {
						URI                  protocol.DocumentURI `json:"uri"`
						Range                protocol.Range       `json:"range"`
						TargetURI            protocol.DocumentURI `json:"targetUri"`
						TargetSelectionRange protocol.Range       `json:"targetSelectionRange"`
					}
					json.Unmarshal(res, &raw)
					for _, r := range raw {
						if r.TargetURI != "" {
							r.URI, r.Range = r.TargetURI, r.TargetSelectionRange
						}
						locs = append(locs, protocol.Location{URI: r.URI, Range: r.Range})
					}
				}
				if err != nil || len(locs) != 1 || locs[0].URI != libURI || int(locs[0].Range.Start.Line) != tc.declLine(round) {
					t.Fatalf("round %d: definition %s %v, want %s line %d", round, res, err, tc.lib, tc.declLine(round)+1)
				}
				decl := map[string]any{"textDocument": map[string]any{"uri": libURI}, "position": map[string]any{"line": locs[0].Range.Start.Line, "character": locs[0].Range.Start.Character},
					"context": map[string]any{"includeDeclaration": true}}
				res, err = e.call(t, protocol.ReferencesRequest.Method(), decl)
				var refs []protocol.Location
				if err == nil {
					json.Unmarshal(res, &refs)
				}
				if err != nil || len(refs) != tc.references(round) {
					t.Fatalf("round %d: %d references (%v), want %d: %s", round, len(refs), err, tc.references(round), res)
				}
				// The open document's findings, published again after the
				// change (round 0: its first publish).
				want := tc.brokenRound(round)
				e.await(t, fmt.Sprintf("round %d: a publish for %s saying broken=%v", round, tc.open, want), func() bool {
					ps := e.diags[uri]
					if len(ps) == 0 || len(ps) <= seen && round > 0 {
						return false
					}
					last := ps[len(ps)-1]
					var msgs []string
					for _, d := range last.Diagnostics {
						m, _ := d.Message.AsString()
						msgs = append(msgs, m)
					}
					return tc.broken(msgs) == want && (want || len(msgs) == 0)
				})
			}
		})
	}
}

// startLive is start over the real servers of tc, with lib at round 0.
func startLive(t testing.TB, tc diskCase, rounds int) (*editor, string) {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{tc.open: tc.openText, tc.lib: tc.libText(0)}
	for k, v := range tc.files {
		files[k] = v
	}
	for name, text := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Parse([]byte(`{"lsp": {"autoInstall": false}}`), "test")
	if err != nil {
		t.Fatal(err)
	}
	o, err := orchestrator.New(orchestrator.Options{Root: root, Config: cfg,
		PositionEncodings: []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF16}})
	if err != nil {
		t.Fatal(err)
	}
	serverSide, clientSide := net.Pipe()
	e := &editor{done: make(chan int, 1), diags: map[protocol.DocumentURI][]protocol.PublishDiagnosticsParams{}, got: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		e.done <- lspserver.New(o, lspserver.Options{Servers: tc.servers}).Serve(ctx, serverSide)
	}()
	e.conn = transport.NewConn(clientSide, transport.Options{Handler: transport.HandlerFunc(e.handle)})
	t.Cleanup(func() {
		cancel()
		e.conn.Close()
		sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer scancel()
		o.Shutdown(sctx)
	})
	return e, o.Root()
}
