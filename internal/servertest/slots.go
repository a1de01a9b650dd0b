package servertest

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Slots is how many live tests may run at once on this machine, across
// every test process (go test runs packages in parallel, each with its
// tests in parallel): LSPKIT_LIVE_SLOTS, else twice the processors. A
// cold language server costs more the more else is starting; past what
// the machine can start in time, more at once is only slower.
func Slots() int {
	if n, err := strconv.Atoi(os.Getenv("LSPKIT_LIVE_SLOTS")); err == nil && n > 0 {
		return n
	}
	return 2 * runtime.NumCPU()
}

var (
	heldMu sync.Mutex
	held   = map[string]bool{} // tests holding a slot, by name
)

// holdSlot takes a live slot for t until it ends, unless t or a test it
// is part of holds one already (a test holds one slot however many
// servers it starts: a test never waits for a slot while holding one).
func holdSlot(t testing.TB) {
	name := t.Name()
	heldMu.Lock()
	parts := strings.Split(name, "/")
	for i := range parts {
		if held[strings.Join(parts[:i+1], "/")] {
			heldMu.Unlock()
			return
		}
	}
	held[name] = true
	heldMu.Unlock()
	release := acquireSlot(name)
	t.Cleanup(func() {
		release()
		heldMu.Lock()
		delete(held, name)
		heldMu.Unlock()
	})
}
