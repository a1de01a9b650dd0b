package orchestrator

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
)

// markedServer is a fake server entry with a root marker.
func markedServer(behavior, marker string) string {
	exe, _ := os.Executable()
	return fmt.Sprintf(`{"command": %q, "args": [%q], "extensions": [".fk"], "rootMarkers": [%q]}`, exe, behavior, marker)
}

// TestPrewarm: with "prewarm": true the daemon starts, unasked, the
// server whose root marker is at the root, with one of its files open; a
// server whose marker is not at the root waits for its first question, as
// every server does without prewarm.
func TestPrewarm(t *testing.T) {
	t.Parallel()
	files := map[string]string{"proj.marker": "", "a.fk": "fine\n", "sub/other.mk2": "", "sub/b.fk": "fine\n"}
	servers := []string{`"warm": ` + markedServer("warm", "proj.marker"), `"cold": ` + markedServer("cold", "other.mk2")}
	behaviors := map[string]lsptest.Behavior{"warm": {}, "cold": {}}

	f := newFake(t, files, lsptest.Config(`,"prewarm":true`, servers...), behaviors)
	deadline := time.After(servertest.Scale(10 * time.Second))
	for {
		if open, _ := f.launcher.Documents(); f.launcher.Launched("warm") == 1 && open == 1 {
			break
		}
		select {
		case <-deadline:
			open, _ := f.launcher.Documents()
			t.Fatalf("prewarm: warm launched %d times, %d documents open", f.launcher.Launched("warm"), open)
		case <-time.After(5 * time.Millisecond): // polling the launcher, with a deadline
		}
	}
	if n := f.launcher.Launched("cold"); n != 0 {
		t.Fatalf("a server whose marker is not at the root was prewarmed (%d)", n)
	}
	if st := f.status("warm"); st.Status != api.StatusActive {
		t.Fatalf("status after prewarm: %+v", st)
	}

	off := newFake(t, files, lsptest.Config("", servers...), behaviors)
	if n := off.launcher.Launched("warm"); n != 0 {
		t.Fatalf("without prewarm a server started unasked (%d)", n)
	}
	if res := off.check(t, api.CheckParams{FilePath: "a.fk"}); !res.Checked || off.launcher.Launched("warm") != 1 {
		t.Fatalf("without prewarm, the first check: %+v", res)
	}
}

// TestPrewarmLive: a prewarmed gopls has its project loaded before the
// first check, which then takes what a warm check takes.
func TestPrewarmLive(t *testing.T) {
	t.Parallel()
	servertest.Binary(t, "gopls")
	o := live(t, map[string]string{"go.mod": servertest.GoMod, "a.go": "package demo\n\nvar X int = \"s\"\n"}, `,"prewarm":true`)
	uri, err := protocol.FileURI(filepath.Join(o.Root(), "a.go"))
	if err != nil {
		t.Fatal(err)
	}
	// Prewarmed: a.go open in gopls, and its load over.
	prewarmed := func() bool {
		for _, s := range o.liveSessions() {
			if c := s.current(); s.spec.ID == "gopls" && c != nil {
				_, open := c.DocumentText(uri)
				return open && !c.Busy()
			}
		}
		return false
	}
	deadline := time.After(time.Minute)
	for !prewarmed() {
		select {
		case <-deadline:
			t.Fatal("gopls was not prewarmed")
		case <-time.After(10 * time.Millisecond): // polling, with a deadline
		}
	}
	res := mustCheck(t, o, api.CheckParams{FilePath: "a.go"})
	if !res.Checked || len(res.Diagnostics) != 1 {
		t.Fatalf("first check after prewarm: %+v", res)
	}
	t.Logf("first check after prewarm: %d ms", res.Servers[0].MS)
}

// TestIdleServerStopped: a server unused for serverIdleStopMs is stopped
// (status idle, saying why; its process gone) and started again by the
// next check, which is answered as before.
func TestIdleServerStopped(t *testing.T) {
	f := newFake(t, map[string]string{"a.fk": "ERROR here\n"}, lsptest.Config(`,"serverIdleStopMs":500`, `"fake": `+lsptest.ServerEntry("fake")), map[string]lsptest.Behavior{"fake": {}})
	if res := f.check(t, api.CheckParams{FilePath: "a.fk"}); !res.Checked || len(res.Diagnostics) != 1 {
		t.Fatalf("first check: %+v", res)
	}
	deadline := time.After(servertest.Scale(10 * time.Second))
	for {
		st := f.status("fake")
		if st.Status == api.StatusIdle && f.launcher.Alive() == 0 {
			if st.Reason != "stopped after 500ms unused; starts again when a matching file is checked" {
				t.Fatalf("status of the stopped server: %+v", st)
			}
			break
		}
		select {
		case <-deadline:
			t.Fatalf("not stopped after 500 ms unused: %+v, %d alive", st, f.launcher.Alive())
		case <-time.After(5 * time.Millisecond): // polling status, with a deadline
		}
	}
	if res := f.check(t, api.CheckParams{FilePath: "a.fk"}); !res.Checked || len(res.Diagnostics) != 1 || f.launcher.Launched("fake") != 2 {
		t.Fatalf("check after the idle stop: %+v, launched %d times", res, f.launcher.Launched("fake"))
	}
	if st := f.status("fake"); st.Status != api.StatusActive {
		t.Fatalf("status after the restart: %+v", st)
	}
}
