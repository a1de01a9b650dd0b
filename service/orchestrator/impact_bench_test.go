package orchestrator

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
)

// impactProjects are the live impact projects by server.
func impactProjects() map[string]impactProject {
	return map[string]impactProject{"gopls": goImpactProject(), "typescript": tsImpactProject(), "pyright": pyImpactProject(), "clangd": cImpactProject()}
}

var impactBinaries = map[string]string{"gopls": "gopls", "typescript": "typescript-language-server", "pyright": "pyright-langserver", "clangd": "clangd"}

// BenchmarkImpactLive measures, warm, on each live impact project with
// its signature change written: the check of the edited file alone
// (plain), with its impact (impact) — each the check of the edit: the
// file as it was checked first, every other file closed — and the slowest
// check of a dependent right after the edit (dependent): the target is
// impact ≤ 2 × plain + dependent.
func BenchmarkImpactLive(b *testing.B) {
	for _, server := range []string{"gopls", "typescript", "pyright", "clangd"} {
		p := impactProjects()[server]
		b.Run(server, func(b *testing.B) {
			servertest.Binary(b, impactBinaries[server])
			root := b.TempDir()
			lsptest.WriteFiles(b, root, p.files)
			o := liveIn(b, root, "")
			original := p.files[p.file]
			broken := strings.Replace(original, p.edits[0].old, p.edits[0].new, 1)
			lsptest.WriteFiles(b, root, map[string]string{p.file: broken})
			res := mustCheck(b, o, api.CheckParams{FilePath: p.file, Impact: true}) // warm it
			var deps []string
			for _, f := range res.Impact.Files {
				deps = append(deps, f.File)
			}
			timeOf := func(cp api.CheckParams) time.Duration {
				start := time.Now()
				mustCheck(b, o, cp)
				return time.Since(start)
			}
			var plain, withImpact, dependent time.Duration
			edit := func(cp api.CheckParams) time.Duration {
				// Each measured check is of the edit: the file as it was,
				// checked, then broken again.
				closeAll(o)
				lsptest.WriteFiles(b, root, map[string]string{p.file: original})
				mustCheck(b, o, cp)
				lsptest.WriteFiles(b, root, map[string]string{p.file: broken})
				return timeOf(cp)
			}
			// afterEdit is the check of a dependent right after the edit,
			// as an agent that checks it next pays for it.
			afterEdit := func(d string) time.Duration {
				edit(api.CheckParams{FilePath: p.file})
				return timeOf(api.CheckParams{FilePath: d})
			}
			for b.Loop() {
				plain += edit(api.CheckParams{FilePath: p.file})
				withImpact += edit(api.CheckParams{FilePath: p.file, Impact: true})
				slowest := time.Duration(0)
				for _, d := range deps {
					slowest = max(slowest, afterEdit(d))
				}
				dependent += slowest
			}
			n := float64(b.N)
			b.ReportMetric(float64(plain.Milliseconds())/n, "plain-ms")
			b.ReportMetric(float64(withImpact.Milliseconds())/n, "impact-ms")
			b.ReportMetric(float64(dependent.Milliseconds())/n, "dependent-ms")
			b.ReportMetric(float64(withImpact)/float64(2*plain+dependent), "ratio")
			b.ReportMetric(float64(len(deps)), "files")
		})
	}
}

// closeAll closes every document o's servers hold, as a sweep leaves them.
func closeAll(o *Orchestrator) {
	for _, s := range o.liveSessions() {
		c := s.current()
		if c == nil {
			continue
		}
		s.mu.Lock()
		var uris []protocol.DocumentURI
		for uri := range s.changes {
			uris = append(uris, uri)
		}
		s.mu.Unlock()
		for _, uri := range uris {
			if path, err := uri.Path(); err == nil {
				s.closeDocument(c, uri, path)
			}
		}
	}
}

// sweepProject is an impact project grown to 100 source files: more
// files like its consumers.
func sweepProject(p impactProject) map[string]string {
	files := map[string]string{}
	n := 0
	for name, text := range p.files {
		files[name] = text
		if isSource(name) {
			n++
		}
	}
	for i := 0; n < 100; i++ {
		for name, text := range p.files {
			if n >= 100 || !strings.Contains(name, "other") {
				continue
			}
			dir, base, _ := strings.Cut(name, "/")
			if base == "" {
				base, dir = dir, ""
			}
			copyName := fmt.Sprintf("more%d_%s", i, base)
			if dir != "" {
				copyName = dir + "/" + copyName
			}
			if strings.HasSuffix(name, ".go") {
				text = strings.Replace(text, "func Other", fmt.Sprintf("func More%dOther", i), 1)
			} else {
				text = strings.ReplaceAll(text, "other", fmt.Sprintf("more%d_other", i))
				text = strings.ReplaceAll(text, "OTHER", fmt.Sprintf("MORE%d_OTHER", i))
			}
			files[copyName] = text
			n++
		}
	}
	return files
}

func isSource(name string) bool {
	for _, ext := range []string{".go", ".ts", ".py", ".c", ".h"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}
