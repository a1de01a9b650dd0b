//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/servertest"
)

// BenchmarkSixPythonRoots: six agents each run `lspkit check` on a file of
// its own Python project at once — six cold pyrights starting together on
// this machine, each given the check's default time. Each check answers:
// the finding (exit 1) or, where its pyright did not settle in time, "not
// checked" and why (exit 3), never a clean file. Reported: the first and
// the last answer, and how many of the six were not checked. Run it quiet
// and under ../shared/tools/slowbox (docs/benchmarks.md).
func BenchmarkSixPythonRoots(b *testing.B) {
	servertest.Binary(b, "pyright-langserver")
	const roots = 6
	var firsts, lasts []time.Duration
	unchecked := 0
	for b.Loop() {
		dirs := make([]string, roots)
		for i := range dirs {
			dirs[i] = b.TempDir()
			writeFiles(b, dirs[i], map[string]string{
				"pyproject.toml": "[project]\nname = \"p\"\nversion = \"0\"\n",
				"lib.py":         "def greeting(name: str) -> str:\n    return \"hello, \" + name\n",
				"main.py":        fmt.Sprintf("from lib import greeting\n\nx: int = greeting(\"%d\")\n", i),
			})
		}
		var mu sync.Mutex
		var took []time.Duration
		var wg sync.WaitGroup
		start := time.Now()
		for _, dir := range dirs {
			wg.Go(func() {
				cmd := exec.Command(lspkitBin, "check", "main.py")
				cmd.Dir = dir
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				cmd.Run()
				el := time.Since(start)
				code := cmd.ProcessState.ExitCode()
				mu.Lock()
				defer mu.Unlock()
				took = append(took, el)
				switch {
				case code == 1 && strings.Contains(out.String(), "main.py:3:"):
				case code == 3 && strings.Contains(errb.String(), "not checked: "):
					unchecked++
					b.Logf("%s after %s: %s", filepath.Base(dir), el.Round(time.Millisecond), strings.TrimSpace(errb.String()))
				default:
					b.Errorf("%s: exit %d, stdout %q, stderr %q: neither the finding nor \"not checked\"", filepath.Base(dir), code, out.String(), errb.String())
				}
			})
		}
		wg.Wait()
		firsts = append(firsts, slices.Min(took))
		lasts = append(lasts, slices.Max(took))
	}
	b.ReportMetric(medianMS(firsts)/1000, "first_s")
	b.ReportMetric(medianMS(lasts)/1000, "last_s")
	b.ReportMetric(float64(unchecked)/float64(len(firsts)), "not_checked/6")
	b.ReportMetric(0, "ns/op")
}
