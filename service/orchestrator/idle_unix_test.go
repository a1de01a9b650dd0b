//go:build unix

package orchestrator

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
)

// TestIdleStopLive: gopls unused for serverIdleStopMs is stopped, its
// process gone, and the next check starts it again and is answered.
func TestIdleStopLive(t *testing.T) {
	t.Parallel()
	servertest.Binary(t, "gopls")
	o := live(t, map[string]string{"go.mod": servertest.GoMod, "a.go": "package demo\n\nvar X int = \"s\"\n"}, `,"serverIdleStopMs":300`)
	if res := mustCheck(t, o, api.CheckParams{FilePath: "a.go"}); !res.Checked || len(res.Diagnostics) != 1 {
		t.Fatalf("first check: %+v", res)
	}
	var pid int
	for _, st := range o.Status() {
		if st.ID == "gopls" {
			pid = st.ServerPID
		}
	}
	deadline := time.After(servertest.Scale(30 * time.Second))
	for {
		var st api.ServerStatus
		for _, s := range o.Status() {
			if s.ID == "gopls" {
				st = s
			}
		}
		if st.Status == api.StatusIdle && strings.HasPrefix(st.Reason, "stopped after 300ms unused") {
			break
		}
		select {
		case <-deadline:
			t.Fatalf("gopls not stopped: %+v", st)
		case <-time.After(10 * time.Millisecond): // polling status, with a deadline
		}
	}
	// Its process ends (the stop is the usual shutdown and exit).
	for pid <= 0 || syscall.Kill(pid, 0) == nil {
		select {
		case <-deadline:
			t.Fatalf("gopls (pid %d) still running after the idle stop", pid)
		case <-time.After(10 * time.Millisecond): // polling the process, with a deadline
		}
	}
	if res := mustCheck(t, o, api.CheckParams{FilePath: "a.go"}); !res.Checked || len(res.Diagnostics) != 1 {
		t.Fatalf("check after the idle stop: %+v", res)
	}
}
