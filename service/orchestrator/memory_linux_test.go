package orchestrator

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
)

// TestStatusMemoryLive: status says how much resident memory gopls holds.
func TestStatusMemoryLive(t *testing.T) {
	t.Parallel()
	servertest.Binary(t, "gopls")
	o := live(t, map[string]string{"go.mod": servertest.GoMod, "a.go": "package demo\n"}, "")
	mustCheck(t, o, api.CheckParams{FilePath: "a.go"})
	for _, st := range o.Status() {
		if st.ID == "gopls" {
			if st.MemoryMB < 5 || st.MemoryMB > 4096 {
				t.Fatalf("gopls's memory in status: %+v", st)
			}
			t.Logf("gopls: %d MiB", st.MemoryMB)
			return
		}
	}
	t.Fatal("no gopls in status")
}

// TestMaxServerMemoryLive: a server over maxServerMemoryMB is restarted
// when no request runs on it — status says why, its process is new, the
// restart is not a crash (the server is never broken for it) — and
// answers as before. gopls, written in Go, starts with the bound as its
// soft limit (GOMEMLIMIT).
func TestMaxServerMemoryLive(t *testing.T) {
	t.Parallel()
	servertest.Binary(t, "gopls")
	o := live(t, map[string]string{"go.mod": servertest.GoMod, "a.go": "package demo\n\nvar X int = \"s\"\n"}, `,"maxServerMemoryMB":5,"restart":{"maxRestarts":1}`)
	o.memoryEvery = 20 * time.Millisecond
	res := mustCheck(t, o, api.CheckParams{FilePath: "a.go"})
	if !res.Checked || len(res.Diagnostics) != 1 {
		t.Fatalf("first check: %+v", res)
	}
	first, limited := 0, false
	deadline := time.Now().Add(time.Minute)
	for {
		st := gopls(t, o)
		if first == 0 {
			first = st.ServerPID
		}
		// Read from whichever process runs now (one restarted meanwhile is
		// gone from /proc).
		if environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", st.ServerPID)); !limited && st.ServerPID > 0 && err == nil {
			if !slices.Contains(strings.Split(string(environ), "\x00"), "GOMEMLIMIT=5MiB") {
				t.Fatalf("gopls's environment has no GOMEMLIMIT=5MiB: %q", environ)
			}
			limited = true
		}
		if limited && st.Restarts >= 2 && strings.Contains(st.Reason, "over maxServerMemoryMB 5") {
			if st.Status == api.StatusBroken || st.ServerPID == first {
				t.Fatalf("status: %+v", st)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not restarted for its memory: %+v", st)
		}
		time.Sleep(20 * time.Millisecond) // polling status, with a deadline
	}
	// Two restarts, more than the crash policy allows (1 in 5 min): still
	// not broken. A check in flight holds off the next.
	res = mustCheck(t, o, api.CheckParams{FilePath: "a.go"})
	if !res.Checked || len(res.Diagnostics) != 1 {
		t.Fatalf("check after restarts: %+v", res)
	}
}

// gopls returns gopls's status.
func gopls(t *testing.T, o *Orchestrator) api.ServerStatus {
	t.Helper()
	for _, st := range o.Status() {
		if st.ID == "gopls" {
			return st
		}
	}
	t.Fatal("no gopls in status")
	return api.ServerStatus{}
}
