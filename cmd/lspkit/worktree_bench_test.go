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

// BenchmarkWorktreeMemory: chi with ky under web/ (chiKy) as a git
// repository with four worktrees, agents attached with --shared in each
// (perWorktree relays per worktree, each checking a file of each language
// and asking a definition in each, all at once), against one agent in one
// worktree: the resident memory of the relays, the daemon and each kind
// of server, and how many daemons serve them (one). Least of ten samples
// 200 ms apart; medians of the rounds (-benchtime Nx).
func BenchmarkWorktreeMemory(b *testing.B) {
	servertest.Binary(b, "gopls")
	servertest.Binary(b, "typescript-language-server")
	for _, perWorktree := range []int{1, 4} {
		b.Run(fmt.Sprintf("relays-per-worktree=%d", perWorktree), func(b *testing.B) {
			measure := func(worktrees int) (total, relays, daemonMiB float64, servers map[string]float64) {
				repo := chiKy.repo(b)
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
							chiKy.run(b, d)
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
				// The first relay started the daemon: the daemon's tree is
				// under it. The relays and the daemon are each their own
				// process's memory.
				sample := func() (float64, float64, float64, map[string]float64) {
					var r float64
					for _, pid := range relayPIDs {
						r += procStatusMiB(pid, "VmRSS")
					}
					all, byName := treeMiB(append(slices.Clone(relayPIDs), daemonPIDs...)...)
					return all, r, procStatusMiB(daemonPIDs[0], "VmRSS"), byName
				}
				total, relays, daemonMiB, servers = sample()
				for range 9 {
					time.Sleep(200 * time.Millisecond) // sampling memory over time: nothing to wait for
					if t, r, d, s := sample(); t < total {
						total, relays, daemonMiB, servers = t, r, d, s
					}
				}
				b.Logf("%d worktrees × %d agents: %.0f MiB in all: relays %.0f, daemon %.0f, by process %v", worktrees, perWorktree, total, relays, daemonMiB, servers)
				for _, d := range ds {
					d.proc.Stdio().Close()
					<-d.proc.Done()
				}
				for _, pid := range daemonPIDs {
					syscall.Kill(pid, syscall.SIGTERM)
				}
				return total, relays, daemonMiB, servers
			}
			var one, four, gopls1, gopls4, node1, node4, relays4, daemon4 []float64
			for b.Loop() {
				t1, _, _, s1 := measure(1)
				t4, r4, d4, s4 := measure(4)
				one, four = append(one, t1), append(four, t4)
				gopls1, gopls4 = append(gopls1, s1["gopls"]), append(gopls4, s4["gopls"])
				node1, node4 = append(node1, s1["node"]+s1["MainThread"]), append(node4, s4["node"]+s4["MainThread"])
				relays4, daemon4 = append(relays4, r4), append(daemon4, d4)
			}
			b.ReportMetric(median(one), "one-MiB")
			b.ReportMetric(median(four), "four-MiB")
			b.ReportMetric(median(four)/median(one), "four/one")
			b.ReportMetric(median(gopls4)/median(gopls1), "gopls-four/one")
			b.ReportMetric(median(node4)/median(node1), "node-four/one")
			b.ReportMetric(median(relays4), "relays-MiB")
			b.ReportMetric(median(daemon4), "daemon-MiB")
		})
	}
}
