package orchestrator

import (
	"testing"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
)

// TestStatusMemoryLive: status says how much resident memory gopls holds.
func TestStatusMemoryLive(t *testing.T) {
	t.Parallel()
	servertest.Binary(t, "gopls")
	o := live(t, map[string]string{"go.mod": goMod, "a.go": "package demo\n"}, "")
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
