package features

import (
	"context"
	"os"
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
// against the what-if check of the same texts alone (what applyEdits
// adds: the check of the disk's texts and the write), and against the
// agent's path without it: write the three files, then check each.
// Medians of the rounds (ms/op per way).
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
	var whatIf, apply, writeThenCheck []float64
	for b.Loop() {
		next := versions[1] // the disk holds versions[0] at each round's start
		start := time.Now()
		if _, err := o.Check(ctx, api.CheckParams{Files: next, Impact: true, Severities: []string{"error"}}); err != nil {
			b.Fatal(err)
		}
		whatIf = append(whatIf, ms(time.Since(start)))

		var edits []api.FileEdit
		for name, text := range next {
			edits = append(edits, api.FileEdit{File: name, Text: &text})
		}
		start = time.Now()
		res, err := o.ApplyEdits(ctx, api.ApplyEditsParams{Edits: edits})
		if err != nil || !res.Applied {
			b.Fatalf("%+v %v", res, err)
		}
		apply = append(apply, ms(time.Since(start)))

		// Back to the other version, the agent's way: write, then check.
		back := versions[0]
		start = time.Now()
		for name, text := range back {
			if err := os.WriteFile(filepath.Join(o.Root(), name), []byte(text), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		for name := range back {
			if _, err := o.Check(ctx, api.CheckParams{FilePath: name, Impact: true}); err != nil {
				b.Fatal(err)
			}
		}
		writeThenCheck = append(writeThenCheck, ms(time.Since(start)))
	}
	b.ReportMetric(median(whatIf), "whatif-ms")
	b.ReportMetric(median(apply), "apply-ms")
	b.ReportMetric(median(apply)/median(whatIf), "apply/whatif")
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
