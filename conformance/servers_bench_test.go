package conformance

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/service/orchestrator"
)

// BenchmarkServers measures each live-tested server on its scenario's
// project (the servers CI alone tests with LSPKIT_CI_LIVE=1):
// cold-ms, a fresh daemon's first check of the broken text (the server's
// start, its project load and its answer); then, warm, checks alternating
// the broken and the fixed text through the daemon (warm-ms) against the
// same texts given to a second process of the server through lspkit's
// client alone (alone-ms: the server's own answer, known complete the same
// way), and overhead-ms, the difference of the medians (target ≤ 1 ms).
func BenchmarkServers(b *testing.B) {
	for _, sc := range scenarios {
		b.Run(sc.name, func(b *testing.B) {
			if sc.ci && !languagesLive() {
				b.Skip("live-tested in CI's suite: LSPKIT_CI_LIVE=1")
			}
			servertest.Binary(b, sc.binary)
			benchServer(b, sc)
		})
	}
}

func benchServer(b *testing.B, sc scenario) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	newRoot := func() string {
		root := filepath.Join(b.TempDir(), "ws")
		if err := os.Mkdir(root, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := writeProject(root, sc); err != nil {
			b.Fatal(err)
		}
		return root
	}
	servers := fmt.Sprintf(`%q: {"enabled": true}`, sc.server)
	if sc.config != "" {
		servers += ", " + sc.config
	}
	cfg, err := config.Parse([]byte(`{"lsp": {"autoInstall": false, "firstTouchTimeout": 60000, "diagnosticTimeout": 30000, "servers": {`+servers+`}}}`), "bench")
	if err != nil {
		b.Fatal(err)
	}
	rootA, rootB := newRoot(), newRoot()
	tapA, tapB := &wireTap{}, &wireTap{}
	o, err := orchestrator.New(orchestrator.Options{Root: rootA, Config: cfg, Launch: tapA.launch})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { o.Shutdown(context.Background()) })
	check := func(text string) (time.Duration, time.Duration) {
		p := api.CheckParams{FilePath: sc.file, Text: &text}
		if sc.disk {
			if err := os.WriteFile(filepath.Join(rootA, sc.file), []byte(text), 0o644); err != nil {
				b.Fatal(err)
			}
			p.Text = nil
		}
		tapA.reset()
		start := time.Now()
		res, err := o.Check(ctx, p)
		took := time.Since(start)
		if err != nil || !res.Checked {
			b.Fatalf("check: %+v %v", res, err)
		}
		return took, took - tapA.span()
	}
	cold, _ := check(sc.broken)

	// The server alone: a second process, as the daemon would start it,
	// driven by the client library.
	ccfg, err := o.ClientConfig(sc.server, rootB)
	if err != nil {
		b.Fatal(err)
	}
	ccfg.Launch = tapB.launch
	c, err := client.Start(ctx, ccfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Shutdown(context.Background()) })
	path := filepath.Join(rootB, sc.file)
	languageID := sc.lang
	alone := func(text string) (time.Duration, time.Duration) {
		diagnose := c.Diagnose
		if sc.disk {
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				b.Fatal(err)
			}
			diagnose = c.DiagnoseSaved
		}
		tapB.reset()
		start := time.Now()
		a, err := diagnose(ctx, path, languageID, text)
		took := time.Since(start)
		if err != nil || a.Settle != client.Settled {
			b.Fatalf("alone: %v %v", a.Settle, err)
		}
		return took, took - tapB.span()
	}
	alone(sc.broken) // its cold start, not measured
	texts := []string{sc.fixed, sc.broken}
	for i := range 4 { // both warm
		check(texts[i%2])
		alone(texts[i%2])
	}
	var warm, own, warmLspkit, ownLspkit []time.Duration
	daemon := func(text string) {
		w, l := check(text)
		warm, warmLspkit = append(warm, w), append(warmLspkit, l)
	}
	server := func(text string) {
		w, l := alone(text)
		own, ownLspkit = append(own, w), append(ownLspkit, l)
	}
	i := 0
	for b.Loop() {
		text := texts[i%2]
		// Each way goes first every other time.
		if i%4 < 2 {
			daemon(text)
			server(text)
		} else {
			server(text)
			daemon(text)
		}
		i++
	}
	median := func(ds []time.Duration) float64 {
		s := slices.Clone(ds)
		slices.Sort(s)
		return float64(s[len(s)/2]) / float64(time.Millisecond)
	}
	b.ReportMetric(float64(cold)/float64(time.Millisecond), "cold-ms")
	b.ReportMetric(median(warm), "warm-ms")
	b.ReportMetric(median(own), "alone-ms")
	b.ReportMetric(median(warm)-median(own), "overhead-ms")
	b.ReportMetric(median(warmLspkit)-median(ownLspkit), "own-ms")
}

// A wireTap times a server's wire: the first write to it and the last read
// from it since reset.
type wireTap struct {
	mu                 sync.Mutex
	firstWrite, lastRd time.Time
}

func (w *wireTap) reset() {
	w.mu.Lock()
	w.firstWrite, w.lastRd = time.Time{}, time.Time{}
	w.mu.Unlock()
}

// span is the server's part of what happened since reset.
func (w *wireTap) span() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.firstWrite.IsZero() || w.lastRd.Before(w.firstWrite) {
		return 0
	}
	return w.lastRd.Sub(w.firstWrite)
}

func (w *wireTap) launch(ctx context.Context, cmd client.Command) (client.Proc, error) {
	p, err := client.LaunchProcess(ctx, cmd)
	if err != nil {
		return nil, err
	}
	return tappedProc{p, w}, nil
}

type tappedProc struct {
	client.Proc
	tap *wireTap
}

func (p tappedProc) Stdio() io.ReadWriteCloser { return tappedStdio{p.Proc.Stdio(), p.tap} }

type tappedStdio struct {
	io.ReadWriteCloser
	tap *wireTap
}

func (s tappedStdio) Read(b []byte) (int, error) {
	n, err := s.ReadWriteCloser.Read(b)
	if n > 0 {
		s.tap.mu.Lock()
		s.tap.lastRd = time.Now()
		s.tap.mu.Unlock()
	}
	return n, err
}

func (s tappedStdio) Write(b []byte) (int, error) {
	s.tap.mu.Lock()
	if s.tap.firstWrite.IsZero() {
		s.tap.firstWrite = time.Now()
	}
	s.tap.mu.Unlock()
	return s.ReadWriteCloser.Write(b)
}
