package protocol_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/google/go-cmp/cmp"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
)

var record = flag.Bool("record", false, "re-record testdata/traffic/gopls.jsonl from the gopls on PATH (or $GOPLS)")

// trafficLine is one recorded message: who sent it and the JSON-RPC message.
type trafficLine struct {
	From    string          `json:"from"` // "client" or "server"
	Message json.RawMessage `json:"message"`
}

type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// TestTrafficRoundTrip decodes every message recorded from real servers into
// the generated type for its method and part, re-encodes it, and requires
// the result to be semantically equal to what the server sent.
func TestTrafficRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("testdata/traffic/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no recorded traffic in testdata/traffic")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			pending := map[string]string{} // "from:id" of a request -> its method
			checked := 0
			for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
				var tl trafficLine
				if err := json.Unmarshal(line, &tl); err != nil {
					t.Fatalf("line %d: %v", i+1, err)
				}
				var env envelope
				if err := json.Unmarshal(tl.Message, &env); err != nil {
					t.Fatalf("line %d: %v", i+1, err)
				}
				var part string
				var raw json.RawMessage
				var target any
				switch {
				case env.Method != "":
					info, ok := protocol.LookupMethod(env.Method)
					if !ok {
						continue // a server's own extension, e.g. gopls/...
					}
					if env.ID != nil {
						pending[tl.From+":"+string(env.ID)] = env.Method
					}
					if env.Params == nil {
						continue
					}
					part, raw, target = env.Method+" params", env.Params, info.NewParams()
				case env.Error != nil:
					continue
				default:
					other := map[string]string{"client": "server", "server": "client"}[tl.From]
					method, ok := pending[other+":"+string(env.ID)]
					if !ok {
						t.Fatalf("line %d: response to unknown request %s", i+1, env.ID)
					}
					info, _ := protocol.LookupMethod(method)
					part, raw, target = method+" result", env.Result, info.NewResult()
				}
				if err := jsonv2.Unmarshal(raw, target); err != nil {
					t.Errorf("line %d: decode %s: %v", i+1, part, err)
					continue
				}
				out, err := jsonv2.Marshal(target)
				if err != nil {
					t.Errorf("line %d: encode %s: %v", i+1, part, err)
					continue
				}
				if diff := cmp.Diff(normalize(t, raw), normalize(t, out)); diff != "" {
					t.Errorf("line %d: %s does not round-trip (-sent +re-encoded):\n%s", i+1, part, diff)
				}
				checked++
			}
			if checked < 20 {
				t.Fatalf("only %d messages checked", checked)
			}
			t.Logf("%d messages decoded and re-encoded", checked)
		})
	}
}

// normalize parses JSON into generic values for comparison. Numbers stay
// exact; nothing else is changed, so a dropped or added member is a diff.
func normalize(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("normalize %s: %v", b, err)
	}
	return v
}

// TestRecordGopls re-records testdata/traffic/gopls.jsonl against a real
// gopls when run with -record. It drives a small but complete session:
// initialize (answering every server request), open a file with a type
// error, hover, definition, references, document symbols, completion,
// signature help, code actions, folding ranges, a fix via didChange, and
// shutdown.
func TestRecordGopls(t *testing.T) {
	if !*record {
		t.Skip("run with -record to re-record traffic")
	}
	gopls := os.Getenv("GOPLS")
	if gopls == "" {
		gopls = "gopls"
	}
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/demo\n\ngo 1.22\n")
	lib := "package demo\n\n// Greeting says hello to name.\nfunc Greeting(name string) string {\n\treturn \"hello, \" + name\n}\n\n// Counter counts.\ntype Counter struct{ N int }\n\n// Add adds d to the counter.\nfunc (c *Counter) Add(d int) { c.N += d }\n"
	write("lib.go", lib)
	broken := "package demo\n\nimport \"fmt\"\n\nfunc Use() {\n\tvar c Counter\n\tc.Add(\"one\")\n\tfmt.Println(Greeting(\"é🙂\"), c.N)\n}\n"
	fixed := strings.Replace(broken, `c.Add("one")`, `c.Add(1)`, 1)
	write("use.go", broken)

	cmd := exec.Command(gopls)
	cmd.Dir = dir
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	var mu sync.Mutex
	var lines [][]byte
	logMsg := func(from string, msg []byte) {
		mu.Lock()
		defer mu.Unlock()
		m := bytes.ReplaceAll(msg, []byte(dir), []byte("/workspace"))
		l, _ := json.Marshal(trafficLine{From: from, Message: m})
		lines = append(lines, l)
	}
	send := func(v any) {
		b, _ := json.Marshal(v)
		logMsg("client", b)
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(b), b)
	}
	responses := map[string]chan json.RawMessage{}
	diags := make(chan json.RawMessage, 100)
	go func() {
		r := bufio.NewReader(stdout)
		for {
			n := 0
			for {
				h, err := r.ReadString('\n')
				if err != nil {
					return
				}
				h = strings.TrimSpace(h)
				if h == "" {
					break
				}
				if v, ok := strings.CutPrefix(h, "Content-Length: "); ok {
					n, _ = strconv.Atoi(v)
				}
			}
			body := make([]byte, n)
			if _, err := io.ReadFull(r, body); err != nil {
				return
			}
			logMsg("server", body)
			var env envelope
			_ = json.Unmarshal(body, &env)
			switch {
			case env.Method != "" && env.ID != nil:
				var result any
				if env.Method == "workspace/configuration" {
					var p struct{ Items []any }
					_ = json.Unmarshal(env.Params, &p)
					res := make([]any, len(p.Items))
					for i := range res {
						res[i] = map[string]any{}
					}
					result = res
				}
				send(map[string]any{"jsonrpc": "2.0", "id": env.ID, "result": result})
			case env.Method == "textDocument/publishDiagnostics":
				diags <- env.Params
			case env.Method == "":
				mu.Lock()
				ch := responses[string(env.ID)]
				mu.Unlock()
				if ch != nil {
					ch <- env.Result
				}
			}
		}
	}()
	nextID := 0
	call := func(method string, params any) json.RawMessage {
		nextID++
		id := strconv.Itoa(nextID)
		ch := make(chan json.RawMessage, 1)
		mu.Lock()
		responses[id] = ch
		mu.Unlock()
		msg := map[string]any{"jsonrpc": "2.0", "id": nextID, "method": method}
		if params != nil {
			msg["params"] = params
		}
		send(msg)
		select {
		case r := <-ch:
			return r
		case <-time.After(servertest.Scale(60 * time.Second)):
			t.Fatalf("%s: no response", method)
			return nil
		}
	}
	notify := func(method string, params any) {
		msg := map[string]any{"jsonrpc": "2.0", "method": method}
		if params != nil {
			msg["params"] = params
		}
		send(msg)
	}
	waitDiags := func(uri string, nonEmpty bool) {
		deadline := time.After(servertest.Scale(60 * time.Second))
		for {
			select {
			case p := <-diags:
				var d struct {
					URI         string `json:"uri"`
					Diagnostics []any  `json:"diagnostics"`
				}
				_ = json.Unmarshal(p, &d)
				if d.URI == uri && (len(d.Diagnostics) > 0) == nonEmpty {
					return
				}
			case <-deadline:
				t.Fatalf("no diagnostics for %s", uri)
			}
		}
	}
	root := "file://" + dir
	useURI := root + "/use.go"
	caps := map[string]any{
		"general":   map[string]any{"positionEncodings": []string{"utf-8", "utf-16"}},
		"workspace": map[string]any{"configuration": true, "workspaceFolders": true, "didChangeWatchedFiles": map[string]any{"dynamicRegistration": true, "relativePatternSupport": true}},
		"window":    map[string]any{"workDoneProgress": true},
		"textDocument": map[string]any{
			"synchronization":    map[string]any{"didSave": true},
			"publishDiagnostics": map[string]any{"relatedInformation": true, "versionSupport": true, "codeDescriptionSupport": true, "dataSupport": true},
			"hover":              map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
			"completion":         map[string]any{"completionItem": map[string]any{"snippetSupport": true, "insertReplaceSupport": true, "documentationFormat": []string{"markdown"}}},
			"documentSymbol":     map[string]any{"hierarchicalDocumentSymbolSupport": true},
			"definition":         map[string]any{"linkSupport": true},
			"codeAction":         map[string]any{"codeActionLiteralSupport": map[string]any{"codeActionKind": map[string]any{"valueSet": []string{"quickfix", "refactor", "source"}}}},
		},
	}
	call("initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": root, "capabilities": caps,
		"clientInfo":       map[string]any{"name": "lspkit-recorder"},
		"workspaceFolders": []any{map[string]any{"uri": root, "name": "demo"}},
	})
	notify("initialized", map[string]any{})
	notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": useURI, "languageId": "go", "version": 1, "text": broken}})
	waitDiags(useURI, true)
	doc := map[string]any{"uri": useURI}
	pos := func(line, char int) map[string]any {
		return map[string]any{"textDocument": doc, "position": map[string]any{"line": line, "character": char}}
	}
	call("textDocument/hover", pos(7, 16))
	call("textDocument/definition", pos(7, 16))
	call("textDocument/typeDefinition", pos(5, 5))
	refs := pos(6, 3)
	refs["context"] = map[string]any{"includeDeclaration": true}
	call("textDocument/references", refs)
	call("textDocument/documentSymbol", map[string]any{"textDocument": doc})
	call("workspace/symbol", map[string]any{"query": "Count"})
	call("textDocument/completion", pos(7, 6))
	call("textDocument/signatureHelp", pos(7, 25))
	call("textDocument/foldingRange", map[string]any{"textDocument": doc})
	call("textDocument/codeAction", map[string]any{"textDocument": doc, "range": map[string]any{"start": map[string]any{"line": 6, "character": 7}, "end": map[string]any{"line": 6, "character": 12}}, "context": map[string]any{"diagnostics": []any{}}})
	call("textDocument/documentHighlight", pos(5, 5))
	call("textDocument/semanticTokens/full", map[string]any{"textDocument": doc})
	notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": useURI, "version": 2}, "contentChanges": []any{map[string]any{"text": fixed}}})
	waitDiags(useURI, false)
	call("shutdown", nil)
	notify("exit", nil)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(servertest.Scale(10 * time.Second)):
		t.Fatal("gopls did not exit")
	}
	mu.Lock()
	defer mu.Unlock()
	out := append(bytes.Join(lines, []byte("\n")), '\n')
	if err := os.WriteFile("testdata/traffic/gopls.jsonl", out, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %d messages", len(lines))
}
