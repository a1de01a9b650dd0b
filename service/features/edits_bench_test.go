package features

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
)

// BenchmarkApplyEdits: a 3-file change with gopls — a function's
// signature and its two callers, changed and then changed back so that
// each round is a real change — as lsp/applyEdits with noNewErrors,
// against the what-if check of the same texts alone plus the write (what
// applyEdits adds: the check of the disk's texts, the write and the
// servers told of it), and against the agent's path without it: write the
// three files, then check each.
// Each way starts from the servers settled on the disk's texts. Medians
// of the rounds (ms/op per way).
func BenchmarkApplyEdits(b *testing.B) {
	servertest.Binary(b, "gopls")
	versions := []map[string]string{
		{
			"lib.go":  "package demo\n\n// Greeting says hello.\nfunc Greeting(name string) string { return \"hello, \" + name }\n",
			"use.go":  "package demo\n\nfunc Use() string { return Greeting(\"x\") }\n",
			"more.go": "package demo\n\nfunc More() string { return Greeting(\"y\") + Greeting(\"z\") }\n",
		},
		{
			"lib.go":  "package demo\n\n// Greeting says hello n times.\nfunc Greeting(name string, n int) string { return \"hello, \" + name }\n",
			"use.go":  "package demo\n\nfunc Use() string { return Greeting(\"x\", 1) }\n",
			"more.go": "package demo\n\nfunc More() string { return Greeting(\"y\", 2) + Greeting(\"z\", 3) }\n",
		},
	}
	files := map[string]string{"go.mod": servertest.GoMod, "other.go": "package demo\n\nfunc Other() string { return Use() + More() }\n"}
	for k, v := range versions[0] {
		files[k] = v
	}
	o := live(b, files, servertest.LoadedWait)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	mustCheck(b, o, api.CheckParams{FilePath: "use.go"})
	settle := func(texts map[string]string) {
		for name := range texts {
			mustCheck(b, o, api.CheckParams{FilePath: name})
		}
	}
	settle(versions[0])
	var whatIf, apply, write, writeThenCheck []float64
	for b.Loop() {
		// Each way starts where an agent's edit starts: the disk's texts
		// checked, the servers settled on them.
		next, back := versions[1], versions[0] // the disk holds back at the round's start
		var edits []api.FileEdit
		for name, text := range next {
			edits = append(edits, api.FileEdit{File: name, Text: &text})
		}
		start := time.Now()
		res, err := o.ApplyEdits(ctx, api.ApplyEditsParams{Edits: edits})
		if err != nil || !res.Applied {
			b.Fatalf("%+v %v", res, err)
		}
		apply = append(apply, ms(time.Since(start)))

		// Back, the agent's way: write, then check. The write is made as
		// applyEdits makes it (all files at once, the servers told), so
		// that its time is the write's share of apply's.
		var files []fileEdit
		for name, text := range back {
			path := filepath.Join(o.Root(), name)
			files = append(files, fileEdit{path: path, rel: name, old: next[name], new: text})
		}
		start = time.Now()
		if err := replaceFiles(files, "the edits", nil); err != nil {
			b.Fatal(err)
		}
		o.Features.core.Refresh(ctx)
		write = append(write, ms(time.Since(start)))
		for name := range back {
			if _, err := o.Check(ctx, api.CheckParams{FilePath: name, Impact: true}); err != nil {
				b.Fatal(err)
			}
		}
		writeThenCheck = append(writeThenCheck, ms(time.Since(start)))

		start = time.Now()
		if _, err := o.Check(ctx, api.CheckParams{Files: next, Impact: true, Severities: []string{"error"}}); err != nil {
			b.Fatal(err)
		}
		whatIf = append(whatIf, ms(time.Since(start)))
		settle(back) // the what-if's texts taken back: settled on the disk's again
	}
	b.ReportMetric(median(whatIf), "whatif-ms")
	b.ReportMetric(median(apply), "apply-ms")
	b.ReportMetric(median(write), "write-ms")
	// The target: apply ≤ 1.1 × the what-if, plus the write.
	b.ReportMetric((median(apply)-median(write))/median(whatIf), "(apply-write)/whatif")
	b.ReportMetric(median(writeThenCheck), "write-then-check-ms")
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// median is the middle of xs (the mean of the two middle ones).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
