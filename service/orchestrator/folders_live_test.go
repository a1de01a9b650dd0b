package orchestrator

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
)

// TestRootsLive: which way each tested server serves several roots, and
// that the answers are those of a process per root. gopls and pyright
// take each root as a workspace folder of one process; typescript-
// language-server serves a monorepo from its outermost root (tsserver
// finds each file's project); clangd, which takes no folders, runs once
// per root.
func TestRootsLive(t *testing.T) {
	t.Parallel()
	cases := []struct {
		server, binary string
		files          map[string]string
		checks         []string             // each with one error
		nav            []api.PositionParams // a definition and a hover in each root
		processes      int                  // processes for both roots
	}{
		{"gopls", "gopls", map[string]string{
			"a/go.mod": "module example.com/a\n\ngo 1.22\n", "a/a.go": "package a\n\n// F is a's.\nfunc F() int { return 1 }\n\nvar X string = F()\n",
			"b/go.mod": "module example.com/b\n\ngo 1.22\n", "b/b.go": "package b\n\n// G is b's.\nfunc G() string { return \"\" }\n\nvar Y int = G()\n",
		}, []string{"a/a.go", "b/b.go"}, []api.PositionParams{{File: "a/a.go", Line: 6, Symbol: "F"}, {File: "b/b.go", Line: 6, Symbol: "G"}}, 1},
		{"pyright", "pyright-langserver", map[string]string{
			"a/pyproject.toml": "[project]\nname = \"a\"\n", "a/m.py": "def f() -> int:\n    return 1\n\nx: str = f()\n",
			"b/pyproject.toml": "[project]\nname = \"b\"\n", "b/n.py": "def g() -> str:\n    return ''\n\ny: int = g()\n",
		}, []string{"a/m.py", "b/n.py"}, []api.PositionParams{{File: "a/m.py", Line: 4, Symbol: "f"}, {File: "b/n.py", Line: 4, Symbol: "g"}}, 1},
		{"typescript", "typescript-language-server", map[string]string{
			"package.json":             `{"name":"mono","private":true,"workspaces":["packages/*"]}`,
			"packages/a/package.json":  `{"name":"a","type":"module"}`,
			"packages/a/tsconfig.json": `{"compilerOptions":{"strict":true}}`,
			"packages/a/src/a.ts":      "export function f(): number {\n  return 1;\n}\n\nexport const x: string = f();\n",
			"packages/b/package.json":  `{"name":"b","type":"module"}`,
			"packages/b/tsconfig.json": `{"compilerOptions":{"strict":true}}`,
			"packages/b/src/b.ts":      "export function g(): string {\n  return \"\";\n}\n\nexport const y: number = g();\n",
		}, []string{"packages/a/src/a.ts", "packages/b/src/b.ts"}, []api.PositionParams{{File: "packages/a/src/a.ts", Line: 5, Symbol: "f"}, {File: "packages/b/src/b.ts", Line: 5, Symbol: "g"}}, 1},
		{"clangd", "clangd", map[string]string{
			"a/compile_flags.txt": "-xc\n", "a/a.c": "int f(void) { return 1; }\n\nint x = f(\"s\");\n",
			"b/compile_flags.txt": "-xc\n", "b/b.c": "int g(void) { return 1; }\n\nint y = g(\"s\");\n",
		}, []string{"a/a.c", "b/b.c"}, []api.PositionParams{{File: "a/a.c", Line: 3, Symbol: "f"}, {File: "b/b.c", Line: 3, Symbol: "g"}}, 2},
	}
	for _, c := range cases {
		t.Run(c.server, func(t *testing.T) {
			t.Parallel()
			servertest.Binary(t, c.binary)
			answers := func(o *Orchestrator) string {
				var b strings.Builder
				for _, f := range c.checks {
					res := mustCheck(t, o, api.CheckParams{FilePath: f})
					if !res.Checked || len(res.Diagnostics) != 1 {
						t.Errorf("check %s: %+v", f, res)
					}
					for _, d := range res.Diagnostics {
						fmt.Fprintf(&b, "%s:%d:%d %s\n", d.File, d.Line, d.Character, d.Message)
					}
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				for _, p := range c.nav {
					def, err := definition(ctx, o, p)
					if err != nil || len(def.Locations) == 0 {
						t.Errorf("definition %+v: %+v %v", p, def, err)
					}
					for _, l := range def.Locations {
						fmt.Fprintf(&b, "definition %s:%d:%d\n", l.File, l.Line, l.Character)
					}
					hover, err := hover(ctx, o, p)
					if err != nil || hover.Content == nil {
						t.Errorf("hover %+v: %+v %v", p, hover, err)
						continue
					}
					fmt.Fprintf(&b, "hover %s\n", *hover.Content)
				}
				return b.String()
			}
			processes := func(o *Orchestrator) (n int, roots []string) {
				for _, st := range o.Status() {
					if st.ID == c.server && st.ServerPID > 0 {
						n++
						roots = append(roots, st.Roots...)
					}
				}
				return n, roots
			}
			// A loaded machine may start a server for longer than the
			// default first-touch wait; the answers must then be complete
			// (the live tests' wait, servertest.LoadedWait).
			wait := servertest.LoadedWait
			shared := live(t, c.files, wait)
			got := answers(shared)
			n, roots := processes(shared)
			if n != c.processes {
				t.Errorf("%d %s processes for two roots; want %d (roots %v)", n, c.server, c.processes, roots)
			}
			if c.server != "typescript" && n == 1 && len(roots) != 2 {
				t.Errorf("status roots: %v", roots)
			}
			each := live(t, c.files, wait+`,"servers":{"`+c.server+`":{"roots":"each"}}`)
			want := answers(each)
			if n, _ := processes(each); n != 2 {
				t.Errorf("with roots each: %d processes", n)
			}
			if got != want {
				t.Errorf("answers with one process:\n%s\nwith a process per root:\n%s", got, want)
			}
		})
	}
}

// BenchmarkTSMonorepo: a 20-package TypeScript monorepo (a root
// package.json with workspaces; each package its package.json, tsconfig
// and a file with one error), each package's first check in turn: served
// by one typescript-language-server from the monorepo's top, against one
// per package (roots "each"). Reports the processes, the total and the
// median first check, and the servers' resident memory. Target: one
// process, first checks ≤ 1.2× those of a process per package.
func BenchmarkTSMonorepo(b *testing.B) {
	servertest.Binary(b, "typescript-language-server")
	files := map[string]string{"package.json": `{"name":"mono","private":true,"workspaces":["packages/*"]}`}
	var checks []string
	for i := range 20 {
		dir := fmt.Sprintf("packages/p%02d/", i)
		files[dir+"package.json"] = fmt.Sprintf(`{"name":"p%02d","type":"module"}`, i)
		files[dir+"tsconfig.json"] = `{"compilerOptions":{"strict":true,"target":"es2022","module":"nodenext"}}`
		files[dir+"src/index.ts"] = fmt.Sprintf("export function f%d(): number {\n  return %d;\n}\n\nexport const x: string = f%d();\n", i, i, i)
		checks = append(checks, dir+"src/index.ts")
	}
	run := func(options string) (total, median time.Duration, processes int, mib float64) {
		o := live(b, files, options)
		var each []time.Duration
		for _, f := range checks {
			start := time.Now()
			res := mustCheck(b, o, api.CheckParams{FilePath: f})
			each = append(each, time.Since(start))
			if !res.Checked || len(res.Diagnostics) != 1 {
				b.Fatalf("check %s: %+v", f, res)
			}
		}
		for _, st := range o.Status() {
			if st.ID == "typescript" && st.ServerPID > 0 {
				processes++
				mib += float64(st.MemoryMB)
			}
		}
		for _, d := range each {
			total += d
		}
		slices.Sort(each)
		o.Shutdown(context.Background())
		return total, each[len(each)/2], processes, mib
	}
	for b.Loop() {
		oneTotal, oneMedian, oneProcs, oneMiB := run("")
		eachTotal, eachMedian, eachProcs, eachMiB := run(`,"servers":{"typescript":{"roots":"each"}}`)
		b.ReportMetric(float64(oneProcs), "one-processes")
		b.ReportMetric(float64(eachProcs), "each-processes")
		b.ReportMetric(float64(oneTotal.Milliseconds()), "one-total-ms")
		b.ReportMetric(float64(eachTotal.Milliseconds()), "each-total-ms")
		b.ReportMetric(float64(oneMedian.Milliseconds()), "one-median-ms")
		b.ReportMetric(float64(eachMedian.Milliseconds()), "each-median-ms")
		b.ReportMetric(oneMiB, "one-MiB")
		b.ReportMetric(eachMiB, "each-MiB")
		b.ReportMetric(float64(oneTotal)/float64(eachTotal), "one/each")
	}
}
