package orchestrator

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/conc"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
)

// TestGivenTextIsThatChecksAlone: a check's given text is never the text
// another request is answered from. One caller checks main.fk with given
// text while another asks hovers on it at the same moment (the fake's
// hover quotes the line it holds): every hover quotes the disk's line,
// however the two interleave (50 rounds, under -race in the test
// command), and the checks see their own text.
func TestGivenTextIsThatChecksAlone(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"main.fk": "disk line\n"}, lsptest.Config("", `"fake": `+lsptest.ServerEntry("fake")),
		map[string]lsptest.Behavior{"fake": {Delay: time.Millisecond}})
	a, detachA := f.Attach(t.Context())
	defer detachA()
	b, detachB := f.Attach(t.Context())
	defer detachB()
	for i := range 50 {
		given := fmt.Sprintf("GIVEN %d ERROR\n", i)
		var wg conc.WaitGroup
		wg.Go(func() {
			res, err := f.Check(a, api.CheckParams{FilePath: "main.fk", Text: &given})
			if err != nil || !res.Checked || len(res.Diagnostics) != 1 {
				t.Errorf("round %d: the check of its own text: %+v, %v", i, res, err)
			}
		})
		wg.Go(func() {
			res, err := hover(b, f.Orchestrator, api.PositionParams{File: "main.fk", Line: 1, Character: 1})
			if err != nil || res.Content == nil || !strings.Contains(*res.Content, "disk line") {
				t.Errorf("round %d: another caller's hover was answered from %v (err %v), not the disk", i, res.Content, err)
			}
		})
		wg.Wait()
		if t.Failed() {
			return
		}
	}
}

// TestDeltaPerCaller: what a check showed is remembered per caller, so
// one agent's delta check is not emptied by another agent's check of the
// same file; a detached caller's record is forgotten.
func TestDeltaPerCaller(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"main.fk": "ERROR one\n"}, lsptest.Config("", `"fake": `+lsptest.ServerEntry("fake")),
		map[string]lsptest.Behavior{"fake": {}})
	a, detachA := f.Attach(t.Context())
	b, detachB := f.Attach(t.Context())
	defer detachB()
	check := func(ctx context.Context) api.CheckResult {
		t.Helper()
		res, err := f.Check(ctx, api.CheckParams{FilePath: "main.fk", Delta: true})
		if err != nil || !res.Checked {
			t.Fatalf("check: %+v, %v", res, err)
		}
		return res
	}
	if res := check(a); len(res.Diagnostics) != 1 {
		t.Fatalf("a's first check: %+v", res)
	}
	if res := check(b); len(res.Diagnostics) != 1 || res.Repeated != 0 {
		t.Fatalf("b's first check was cut by a's: %+v", res)
	}
	if res := check(a); len(res.Diagnostics) != 0 || res.Repeated != 1 {
		t.Fatalf("a's second check: %+v (want the finding left out as repeated)", res)
	}
	detachA()
	a2, detachA2 := f.Attach(t.Context())
	defer detachA2()
	if res := check(a2); len(res.Diagnostics) != 1 {
		t.Fatalf("a new caller's first check: %+v", res)
	}
	if n := f.shown.Len(); n != 2 {
		t.Errorf("%d records kept; want 2 (b's and the new caller's; the detached one's forgotten)", n)
	}
}

// TestDetachCancels: a caller's requests end when it detaches.
func TestDetachCancels(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"main.fk": "x\n"}, lsptest.Config("", `"fake": `+lsptest.ServerEntry("fake")),
		map[string]lsptest.Behavior{"fake": {HangOn: "textDocument/hover"}})
	caller, detach := f.Attach(t.Context())
	ctx, cancel := Join(context.Background(), caller)
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := hover(ctx, f.Orchestrator, api.PositionParams{File: "main.fk", Line: 1, Character: 1})
		errc <- err
	}()
	// The hover is in flight once the server holds the document.
	deadline := time.Now().Add(10 * time.Second)
	for f.inFlight() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the hover never reached the server")
		}
		time.Sleep(time.Millisecond) // polling the client's in-flight count: no event for it
	}
	detach()
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("the hover of a detached caller answered without error")
		}
	case <-time.After(servertest.Scale(10 * time.Second)):
		t.Fatal("the hover of a detached caller still runs")
	}
}

// inFlight counts the requests the live servers have in flight.
func (f *fake) inFlight() int {
	n := 0
	for _, s := range f.liveSessions() {
		if c := s.current(); c != nil {
			n += c.InFlight()
		}
	}
	return n
}
