package orchestrator

import (
	"context"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/budget"
	"github.com/lspkit/lspkit/service/config"
)

// TestBudgetAcrossRoots: two orchestrators of one daemon (two worktrees)
// share a budget of one server. The second root's first check stops the
// first root's idle server, which says why; the first root's next check
// starts it again, answers as before and says it started cold, and
// stops the second's in turn. No check fails for the budget.
func TestBudgetAcrossRoots(t *testing.T) {
	t.Parallel()
	b := &budget.Budget{MaxServers: 1}
	l := &lsptest.Launcher{Behaviors: map[string]lsptest.Behavior{"fake": {}}}
	cfg, err := config.Parse([]byte(lsptest.Config("", `"fake": `+lsptest.ServerEntry("fake"))), "test")
	if err != nil {
		t.Fatal(err)
	}
	open := func() *fake {
		root := t.TempDir()
		lsptest.WriteFiles(t, root, map[string]string{"a.fk": "ERROR here\n"})
		o, err := New(Options{Root: root, Config: cfg, Launch: l.Launch, StopGrace: time.Second, Budget: b})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { o.Shutdown(context.Background()) })
		return &fake{Orchestrator: o, root: o.Root(), launcher: l}
	}
	one, two := open(), open()
	checked := func(f *fake, cold string) {
		t.Helper()
		res := f.check(t, api.CheckParams{FilePath: "a.fk"})
		if !res.Checked || len(res.Diagnostics) != 1 || len(res.Servers) != 1 || res.Servers[0].Cold != cold {
			t.Fatalf("check in %s: %+v; want checked, one finding, cold %q", f.root, res, cold)
		}
	}
	const why = "stopped for another server: the daemon's budget is maxServers 1"
	stopped := func(f *fake) {
		t.Helper()
		deadline := time.After(servertest.Scale(10 * time.Second))
		for {
			st := f.status("fake")
			if st.Status == api.StatusIdle && l.Alive() == 1 {
				if st.Reason != why+"; starts again when a matching file is checked" {
					t.Fatalf("status of the stopped server: %+v", st)
				}
				return
			}
			select {
			case <-deadline:
				t.Fatalf("%s's server not stopped for the budget: %+v, %d alive", f.root, st, l.Alive())
			case <-time.After(5 * time.Millisecond): // polling status, with a deadline
			}
		}
	}
	checked(one, "")
	checked(two, "")
	stopped(one)
	checked(one, why)
	stopped(two)
	if n := l.Launched("fake"); n != 3 {
		t.Fatalf("%d server starts, want 3", n)
	}
}
