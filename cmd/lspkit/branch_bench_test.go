//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/transport"
)

// branchFiles is how many files a branch switch replaces.
const branchFiles = 200

// branchRepo makes a git repository at root with a Go module whose package
// p has branchFiles files, F<i> returning int on branch "a" and string on
// branch "b", and main.go adding them all up as ints (clean on "a", one
// error on "b"). It is left on "a".
func branchRepo(tb testing.TB, root string) {
	tb.Helper()
	git := func(args ...string) {
		tb.Helper()
		cmd := exec.Command("git", append([]string{"-C", root, "-c", "user.name=lspkit", "-c", "user.email=lspkit@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	var sum strings.Builder
	sum.WriteString("package main\n\nimport \"example.com/demo/p\"\n\nvar total int = 0")
	files := map[string]string{"go.mod": goMod, "lspkit.json": noInstall("")}
	for i := range branchFiles {
		fmt.Fprintf(&sum, " +\n\tp.F%d()", i)
		files[fmt.Sprintf("p/f%03d.go", i)] = fmt.Sprintf("package p\n\n// F%d is part %d.\nfunc F%d() int { return %d }\n", i, i, i, i)
	}
	sum.WriteString("\n\nfunc main() { _ = total }\n")
	files["main.go"] = sum.String()
	writeFiles(tb, root, files)
	git("init", "-q", "-b", "a")
	git("add", "-A")
	git("commit", "-q", "-m", "a")
	git("checkout", "-q", "-b", "b")
	for i := range branchFiles {
		files[fmt.Sprintf("p/f%03d.go", i)] = fmt.Sprintf("package p\n\n// F%d is part %d.\nfunc F%d() string { return \"%d\" }\n", i, i, i, i)
	}
	writeFiles(tb, root, files)
	git("commit", "-q", "-am", "b")
	git("checkout", "-q", "a")
}

// checkout switches root's repository to branch.
func checkout(tb testing.TB, root, branch string) {
	tb.Helper()
	if out, err := exec.Command("git", "-C", root, "checkout", "-q", branch).CombinedOutput(); err != nil {
		tb.Fatalf("git checkout %s: %v\n%s", branch, err, out)
	}
}

// BenchmarkBranchSwitch: `git checkout` replaces 200 files of a Go
// package, and the importer is checked at once. lspkit (its watcher and
// barrier) against a raw client that is told the same 200 changes
// (workspace/didChangeWatchedFiles) and asks gopls for the importer's
// findings (gopls.diagnose_files): the time from the checkout's end to the
// first right answer, each on its own copy of the repository. Target:
// lspkit ≤ raw + 50 ms. Every answer must be right (1 error on branch b,
// none on a).
func BenchmarkBranchSwitch(b *testing.B) {
	gopls := servertest.Binary(b, "gopls")
	rootD, rootR := b.TempDir(), b.TempDir()
	branchRepo(b, rootD)
	branchRepo(b, rootR)
	d := startDaemonB(b, rootD)
	raw := newBranchRaw(b, gopls, rootR)

	wantErrors := map[string]int{"a": 0, "b": 1}
	var diags []api.Diagnostic
	d.must("lsp/checkFile", map[string]any{"filePath": "main.go"}, &diags) // warm
	if len(diags) != 0 {
		b.Fatalf("branch a: %+v", diags)
	}
	raw.check(b, 0)
	var viaDaemon, direct []time.Duration
	branch := "a"
	for b.Loop() {
		branch = map[string]string{"a": "b", "b": "a"}[branch]
		checkout(b, rootD, branch)
		start := time.Now()
		d.must("lsp/checkFile", map[string]any{"filePath": "main.go"}, &diags)
		viaDaemon = append(viaDaemon, time.Since(start))
		if len(diags) != wantErrors[branch] {
			b.Fatalf("lspkit on branch %s: %d findings, want %d: %+v", branch, len(diags), wantErrors[branch], diags)
		}
		checkout(b, rootR, branch)
		start = time.Now()
		raw.changed(b)
		raw.check(b, wantErrors[branch])
		direct = append(direct, time.Since(start))
	}
	b.ReportMetric(medianMS(viaDaemon), "lspkit-ms")
	b.ReportMetric(medianMS(direct), "raw-ms")
	b.ReportMetric(medianMS(viaDaemon)-medianMS(direct), "extra-ms")
}

// branchRaw is a minimal client of gopls with main.go open, keeping the
// last findings published for it.
type branchRaw struct {
	conn *transport.Conn
	root string
	main string // main.go's URI

	mu   sync.Mutex
	last int // findings in main.go's last publish
}

func newBranchRaw(b *testing.B, gopls, root string) *branchRaw {
	r := &branchRaw{root: root, main: "file://" + filepath.Join(root, "main.go")}
	proc, err := client.StartProcess(client.Command{Path: gopls, Dir: root})
	if err != nil {
		b.Fatal(err)
	}
	r.conn = transport.NewConn(proc.Stdio(), transport.Options{Handler: transport.HandlerFunc(func(_ context.Context, req *transport.Request) (any, error) {
		if req.Method == "textDocument/publishDiagnostics" && bytes.Contains(req.Params, []byte(r.main)) {
			var p struct {
				Diagnostics []jsontext.Value `json:"diagnostics"`
			}
			if err := json.Unmarshal(req.Params, &p); err == nil {
				r.mu.Lock()
				r.last = len(p.Diagnostics)
				r.mu.Unlock()
			}
		}
		return nil, nil
	})})
	b.Cleanup(func() { r.conn.Close(); proc.Stop(time.Second) })
	ctx := context.Background()
	init := fmt.Sprintf(`{"processId":%d,"rootUri":"file://%s","capabilities":{"workspace":{"didChangeWatchedFiles":{"dynamicRegistration":true}},"textDocument":{"publishDiagnostics":{"versionSupport":true}}},"workspaceFolders":[{"uri":"file://%s","name":"ws"}]}`, os.Getpid(), root, root)
	if err := r.conn.Call(ctx, "initialize", []byte(init), nil); err != nil {
		b.Fatal(err)
	}
	r.conn.Notify(ctx, "initialized", []byte(`{}`))
	text, err := os.ReadFile(filepath.Join(root, "main.go"))
	if err != nil {
		b.Fatal(err)
	}
	r.conn.Notify(ctx, "textDocument/didOpen", []byte(fmt.Sprintf(`{"textDocument":{"uri":%q,"languageId":"go","version":1,"text":%q}}`, r.main, text)))
	return r
}

// changed tells gopls that the branch's files changed, in one notification.
func (r *branchRaw) changed(b *testing.B) {
	var events []string
	for i := range branchFiles {
		events = append(events, fmt.Sprintf(`{"uri":"file://%s","type":2}`, filepath.Join(r.root, fmt.Sprintf("p/f%03d.go", i))))
	}
	if err := r.conn.Notify(context.Background(), "workspace/didChangeWatchedFiles", []byte(`{"changes":[`+strings.Join(events, ",")+`]}`)); err != nil {
		b.Fatal(err)
	}
}

// check has gopls publish main.go's findings (gopls.diagnose_files returns
// once they are published) and requires want of them.
func (r *branchRaw) check(b *testing.B, want int) {
	if err := r.conn.Call(context.Background(), "workspace/executeCommand", []byte(fmt.Sprintf(`{"command":"gopls.diagnose_files","arguments":[{"Files":[%q]}]}`, r.main)), nil); err != nil {
		b.Fatal(err)
	}
	if err := r.conn.Drain(context.Background()); err != nil {
		b.Fatal(err)
	}
	r.mu.Lock()
	got := r.last
	r.mu.Unlock()
	if got != want {
		b.Fatalf("raw client: %d findings in main.go, want %d", got, want)
	}
}
