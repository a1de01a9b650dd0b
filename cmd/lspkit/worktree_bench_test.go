//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/servertest"
)

// BenchmarkWorktreeMemory: chi, ky, click and cJSON (fourLanguages) as a
// git repository with four worktrees, agents attached with --shared in
// each (perWorktree relays per worktree, each checking a file of each
// language and asking a definition in each, all at once), against one
// agent in one worktree: the resident memory of the relays, the daemon
// and each server (its processes as lsp/status names them, with their
// children, each process once however many worktrees it serves), and how
// many daemons serve them (one). Least of ten samples 200 ms apart;
// medians of the rounds (-benchtime Nx). LSPKIT_BENCH_LSP adds to the
// workspace's lsp configuration (`,"maxMemoryMB":1024`, or a server's
// env: `,"servers":{"gopls":{"env":{"GOMEMLIMIT":"256MiB"}}}`).
func BenchmarkWorktreeMemory(b *testing.B) {
	servers := []string{"gopls", "typescript", "pyright", "clangd"}
	for _, bin := range []string{"gopls", "typescript-language-server", "pyright-langserver", "clangd"} {
		servertest.Binary(b, bin)
	}
	for _, perWorktree := range []int{1, 4} {
		b.Run(fmt.Sprintf("relays-per-worktree=%d", perWorktree), func(b *testing.B) {
			var relaysPSS []float64
			measure := func(worktrees int) (total, relays, daemonMiB float64, servers map[string]float64) {
				repo := fourLanguages.repo(b)
				if extra := os.Getenv("LSPKIT_BENCH_LSP"); extra != "" {
					writeFiles(b, repo, map[string]string{"lspkit.json": noInstall(extra)})
				}
				gitIn(b, repo, "init", "-q")
				gitIn(b, repo, "add", ".")
				gitIn(b, repo, "commit", "-qm", "chi and ky")
				roots := []string{repo}
				for i := 1; i < worktrees; i++ {
					wt := filepath.Join(b.TempDir(), fmt.Sprintf("wt%d", i))
					gitIn(b, repo, "worktree", "add", "-q", "-b", fmt.Sprintf("wt%d", i), wt)
					roots = append(roots, wt)
				}
				runtime, err := os.MkdirTemp("", "rt")
				if err != nil {
					b.Fatal(err)
				}
				defer os.RemoveAll(runtime)
				var ds []*daemon
				var mu sync.Mutex
				var wg sync.WaitGroup
				for _, root := range roots {
					for range perWorktree {
						wg.Go(func() {
							d := startServe(b, root, b.TempDir(), []string{"--shared"}, "LSPKIT_RUNTIME_DIR="+runtime, "LSPKIT_LOG=error")
							fourLanguages.run(b, d)
							mu.Lock()
							ds = append(ds, d)
							mu.Unlock()
						})
					}
				}
				wg.Wait()
				var relayPIDs, daemonPIDs []int
				for _, d := range ds {
					relayPIDs = append(relayPIDs, d.proc.PID())
					if pid := int(d.readyParams["pid"].(float64)); !slices.Contains(daemonPIDs, pid) {
						daemonPIDs = append(daemonPIDs, pid)
					}
				}
				if len(daemonPIDs) != 1 {
					b.Fatalf("%d worktrees: daemons %v, want one", worktrees, daemonPIDs)
				}
				// Each server's processes, as each worktree's status names
				// them: one shared by several worktrees counts once.
				serverPIDs := map[string][]int{}
				for _, d := range ds {
					for id, st := range d.status() {
						if st.ServerPID > 0 && !slices.Contains(serverPIDs[id], st.ServerPID) {
							serverPIDs[id] = append(serverPIDs[id], st.ServerPID)
						}
					}
				}
				// The first relay started the daemon: the daemon's tree is
				// under it. The relays and the daemon are each their own
				// process's memory.
				sample := func() (float64, float64, float64, map[string]float64) {
					var r float64
					for _, pid := range relayPIDs {
						r += procStatusMiB(pid, "VmRSS")
					}
					all, _ := treeMiB(append(slices.Clone(relayPIDs), daemonPIDs...)...)
					byServer := map[string]float64{}
					for id, pids := range serverPIDs {
						byServer[id], _ = treeMiB(pids...)
					}
					return all, r, procStatusMiB(daemonPIDs[0], "VmRSS"), byServer
				}
				total, relays, daemonMiB, servers = sample()
				for range 9 {
					time.Sleep(200 * time.Millisecond) // sampling memory over time: nothing to wait for
					if t, r, d, s := sample(); t < total {
						total, relays, daemonMiB, servers = t, r, d, s
					}
				}
				var pss float64
				for _, pid := range relayPIDs {
					pss += procPSSMiB(pid)
				}
				if worktrees == 4 {
					relaysPSS = append(relaysPSS, pss)
				}
				b.Logf("%d worktrees × %d agents: %.0f MiB in all: relays %.0f (proportional set size %.1f), daemon %.0f, by server %v (processes %v)", worktrees, perWorktree, total, relays, pss, daemonMiB, servers, serverPIDs)
				for _, d := range ds {
					d.proc.Stdio().Close()
					<-d.proc.Done()
				}
				for _, pid := range daemonPIDs {
					syscall.Kill(pid, syscall.SIGTERM)
				}
				return total, relays, daemonMiB, servers
			}
			var one, four, relays4, daemon4 []float64
			per1, per4 := map[string][]float64{}, map[string][]float64{}
			for b.Loop() {
				t1, _, _, s1 := measure(1)
				t4, r4, d4, s4 := measure(4)
				one, four = append(one, t1), append(four, t4)
				for _, id := range servers {
					per1[id], per4[id] = append(per1[id], s1[id]), append(per4[id], s4[id])
				}
				relays4, daemon4 = append(relays4, r4), append(daemon4, d4)
			}
			b.ReportMetric(median(one), "one-MiB")
			b.ReportMetric(median(four), "four-MiB")
			b.ReportMetric(median(four)/median(one), "four/one")
			for _, id := range servers {
				b.ReportMetric(median(per1[id]), id+"-one-MiB")
				b.ReportMetric(median(per4[id])/median(per1[id]), id+"-four/one")
			}
			b.ReportMetric(median(relays4), "relays-MiB")
			b.ReportMetric(median(relaysPSS), "relays-PSS-MiB")
			b.ReportMetric(median(daemon4), "daemon-MiB")
		})
	}
}
