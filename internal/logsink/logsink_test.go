package logsink

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestInOrder: what is written arrives, whole and in order.
func TestInOrder(t *testing.T) {
	r, w := io.Pipe()
	s := New(w, 0)
	log := slog.New(slog.NewTextHandler(s, nil))
	for i := range 100 {
		log.Info("line", "n", i)
	}
	sc := bufio.NewScanner(r)
	for i := range 100 {
		if !sc.Scan() || !strings.Contains(sc.Text(), fmt.Sprintf("n=%d", i)) {
			t.Fatalf("line %d: %q %v", i, sc.Text(), sc.Err())
		}
	}
	if !s.Close(10 * time.Second) {
		t.Fatal("close: not everything written")
	}
}

// TestNeverBlocks: a destination that takes nothing (a pipe nobody reads)
// holds up no writer: 10,000 records are taken at once, those past the
// buffer dropped and counted; once the destination reads again, the
// buffered ones arrive, then a line saying how many were dropped.
func TestNeverBlocks(t *testing.T) {
	r, w := io.Pipe()
	s := New(w, 64<<10)
	log := slog.New(slog.NewTextHandler(s, &slog.HandlerOptions{Level: slog.LevelDebug}))
	wrote := make(chan struct{})
	go func() {
		for i := range 10000 {
			log.Debug("request", "method", "lsp/status", "n", i)
		}
		close(wrote)
	}()
	select {
	case <-wrote:
	case <-time.After(time.Minute):
		t.Fatal("writers held up by a destination that does not read")
	}
	lost := s.Lost()
	if lost == 0 || lost == 10000 {
		t.Fatalf("lost %d of 10000", lost)
	}
	// Every drop is reported once drained: in one report, or in several
	// when the copier took a batch while drops went on (a loaded machine
	// may not run it before the buffer is full).
	sc := bufio.NewScanner(r)
	lines, reported := 0, int64(0)
	for (reported < lost || int64(lines)+lost < 10000) && sc.Scan() {
		var n int64
		var unit string
		if _, err := fmt.Sscanf(sc.Text(), "lspkit: %d log %s dropped: stderr was not read fast enough", &n, &unit); err == nil {
			reported += n
			continue
		}
		if strings.HasPrefix(sc.Text(), "lspkit: ") {
			t.Fatalf("report %q", sc.Text())
		}
		lines++
	}
	if reported != lost {
		t.Fatalf("reports say %d lines dropped, of %d", reported, lost)
	}
	if int64(lines)+lost != 10000 {
		t.Fatalf("%d lines arrived and %d were dropped, of 10000", lines, lost)
	}
	go io.Copy(io.Discard, r)
	if !s.Close(10 * time.Second) {
		t.Fatal("close")
	}
}

// TestCloseLeavesABlockedDestination: Close does not wait past its
// timeout for a destination that takes nothing.
func TestCloseLeavesABlockedDestination(t *testing.T) {
	_, w := io.Pipe()
	s := New(w, 0)
	s.Write([]byte("never read\n"))
	if s.Close(10 * time.Millisecond) {
		t.Fatal("close reported everything written")
	}
}
