package budget

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// member is a server as the tests make it: used at a given time, busy or
// not, of some memory.
type member struct {
	name    string
	used    time.Time
	busy    bool
	mem     uint64
	mu      sync.Mutex
	stopped string
}

func (m *member) Name() string           { return m.name }
func (m *member) LastUse() time.Time     { return m.used }
func (m *member) Memory() (uint64, bool) { return m.mem, true }
func (m *member) Alive() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stopped == ""
}
func (m *member) Stop(reason string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.busy {
		return false
	}
	m.stopped = reason
	return true
}

func stoppedOf(ms ...*member) []string {
	var out []string
	for _, m := range ms {
		if !m.Alive() {
			out = append(out, m.name)
		}
	}
	return out
}

// TestMaxServers: the third server of a budget of two stops the least
// recently used idle one — not a busy one, though older — and when every
// other is busy the new one starts over the budget.
func TestMaxServers(t *testing.T) {
	now := time.Now()
	b := &Budget{MaxServers: 2}
	old := &member{name: "old", used: now.Add(-3 * time.Minute), busy: true}
	mid := &member{name: "mid", used: now.Add(-2 * time.Minute)}
	b.Join(old)
	b.Join(mid)
	if got := stoppedOf(old, mid); len(got) != 0 {
		t.Fatalf("within the budget: %v stopped", got)
	}
	third := &member{name: "third", used: now}
	b.Join(third)
	if got := stoppedOf(old, mid, third); !slices.Equal(got, []string{"mid"}) || mid.stopped != "stopped for another server: the daemon's budget is maxServers 2" {
		t.Fatalf("the third server stopped %v (%q); want mid, the least recently used idle one", got, mid.stopped)
	}
	third.busy = true
	fourth := &member{name: "fourth", used: now}
	b.Join(fourth)
	if got := stoppedOf(old, third, fourth); len(got) != 0 || b.Running() != 3 {
		t.Fatalf("every other server busy: %v stopped, %d running; want the fourth started over the budget", got, b.Running())
	}
	var unbounded *Budget
	unbounded.Join(fourth) // a nil budget bounds nothing
}

// TestMaxMemory: over maxMemoryMB, idle servers stop, least recently used
// first, until the total is under it; busy ones stay.
func TestMaxMemory(t *testing.T) {
	now := time.Now()
	b := &Budget{MaxMemoryMB: 250}
	a := &member{name: "a", used: now.Add(-3 * time.Minute), mem: 100 << 20}
	busy := &member{name: "busy", used: now.Add(-4 * time.Minute), mem: 100 << 20, busy: true}
	c := &member{name: "c", used: now.Add(-2 * time.Minute), mem: 100 << 20}
	d := &member{name: "d", used: now, mem: 100 << 20}
	for _, m := range []*member{a, busy, c, d} {
		b.Join(m)
	}
	b.enforceMemory()
	if got := stoppedOf(a, busy, c, d); !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("400 MiB against 250: stopped %v, want a and c (the least recently used idle ones)", got)
	}
	if a.stopped != "stopped to bring the servers' memory (400 MiB) under the daemon's budget, maxMemoryMB 250" {
		t.Fatalf("a's reason: %q", a.stopped)
	}
	b.enforceMemory()
	if got := stoppedOf(busy, d); len(got) != 0 {
		t.Fatalf("under the budget: %v stopped", got)
	}
}
