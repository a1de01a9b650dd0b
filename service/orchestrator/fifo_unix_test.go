//go:build unix

package orchestrator

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/service/api"
)

// TestFIFORefused: a FIFO is not read (the read would block until a
// writer came); the check says why at once.
func TestFIFORefused(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil, lsptest.Config("", `"fake": `+lsptest.ServerEntry("fake")), map[string]lsptest.Behavior{"fake": {}})
	if err := syscall.Mkfifo(filepath.Join(f.root, "pipe.fk"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	if res := f.check(t, api.CheckParams{FilePath: "pipe.fk"}); res.Checked || res.Reason != "pipe.fk is not a regular file" {
		t.Fatalf("%+v", res)
	}
}
