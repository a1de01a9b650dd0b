package burst

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/service/orchestrator"
)

// project is a workspace of the fake "linked" server: lib.fk defines F and
// G; a.fk and b.fk call F, c.fk calls G; b.fk has an error of its own, as
// does alone.fk, which imports nothing.
var project = map[string]string{
	"lib.fk":   "def F 1\ndef G 1\n",
	"a.fk":     "import lib\ncall F 1\n",
	"b.fk":     "import lib\ncall F 1\nERROR of b's own\n",
	"c.fk":     "import lib\ncall G 1\n",
	"alone.fk": "ERROR of alone's own\n",
}

// fixture is a tracker over an orchestrator of fake servers in a new root.
type fixture struct {
	t    *testing.T
	root string
	tr   *Tracker
}

func newFixture(t *testing.T, files map[string]string) *fixture {
	t.Helper()
	return newFixtureOf(t, files, lsptest.Behavior{Linked: true})
}

// newFixtureOf is newFixture with the server's behavior b.
func newFixtureOf(t *testing.T, files map[string]string, b lsptest.Behavior) *fixture {
	t.Helper()
	root := t.TempDir()
	lsptest.WriteFiles(t, root, files)
	l := &lsptest.Launcher{Behaviors: map[string]lsptest.Behavior{"linked": b}}
	cfg, err := config.Parse([]byte(lsptest.Config("", `"fake": `+lsptest.ImportingEntry("linked"))), "test")
	if err != nil {
		t.Fatal(err)
	}
	o, err := orchestrator.New(orchestrator.Options{Root: root, Config: cfg, Launch: l.Launch, StopGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Shutdown(context.Background()) })
	return &fixture{t: t, root: o.Root(), tr: New(o)}
}

// event sends one lsp/burst event of session.
func (f *fixture) event(session, event string, files ...string) api.BurstResult {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), servertest.Scale(time.Minute))
	defer cancel()
	res, err := f.tr.Burst(ctx, api.BurstParams{Session: session, Event: event, Files: files})
	if err != nil {
		f.t.Fatalf("%s %v: %v", event, files, err)
	}
	return res
}

// edit is a tool's edit as a host's hooks tell it: before, the write,
// after.
func (f *fixture) edit(session, file, text string) api.BurstResult {
	f.t.Helper()
	f.event(session, api.BurstBeforeEdit, file)
	if err := os.WriteFile(filepath.Join(f.root, file), []byte(text), 0o644); err != nil {
		f.t.Fatal(err)
	}
	return f.event(session, api.BurstAfterEdit, file)
}

// files is the files a result names new errors in.
func files(res api.BurstResult) []string {
	var out []string
	for f, ds := range res.New {
		if len(ds) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// TestBurstTurns: the turns of the issue on the fake. Turn A changes F's
// signature, then fixes its callers: nothing is said when the burst ends,
// and the turn ends unheld — b.fk's error of its own is never said. Turn B
// changes the signature alone: its end names exactly the two broken
// callers (not c.fk, not the old errors), said once; the turn is held once
// with the same list and let go on the second stop.
func TestBurstTurns(t *testing.T) {
	t.Parallel()
	f := newFixture(t, project)

	// Turn A.
	if res := f.edit("s", "lib.fk", "def F 2\ndef G 1\n"); res.Text != "" {
		t.Fatalf("an edit's own hook said: %q", res.Text)
	}
	f.edit("s", "a.fk", "import lib\ncall F 2\n")
	f.edit("s", "b.fk", "import lib\ncall F 2\nERROR of b's own\n")
	if res := f.event("s", api.BurstEnd); res.Text != "" || len(res.New) != 0 || !res.Complete {
		t.Fatalf("turn A's burst end: %+v", res)
	}
	if res := f.event("s", api.BurstAfter); res.Text != "" {
		t.Fatalf("after the tool: %q", res.Text)
	}
	if res := f.event("s", api.BurstStop); res.Hold || res.Text != "" {
		t.Fatalf("turn A's stop: %+v", res)
	}

	// Turn B.
	f.edit("s", "lib.fk", "def F 3\ndef G 1\n")
	end := f.event("s", api.BurstEnd)
	if got := files(end); len(got) != 2 || end.New["a.fk"] == nil || end.New["b.fk"] == nil || len(end.New["b.fk"]) != 1 {
		t.Fatalf("turn B's burst end: new errors in %v: %+v", got, end.New)
	}
	if !strings.Contains(end.Text, "LSP errors detected in other files:") || !strings.Contains(end.Text, "F takes 3 arguments, not 2") ||
		strings.Contains(end.Text, "of b's own") || strings.Contains(end.Text, "c.fk") || strings.Contains(end.Text, "alone") {
		t.Fatalf("turn B's burst end text:\n%s", end.Text)
	}
	if res := f.event("s", api.BurstAfter); res.Text != end.Text {
		t.Fatalf("the post-tool event gave %q, want the burst's feedback", res.Text)
	}
	if res := f.event("s", api.BurstAfter); res.Text != "" {
		t.Fatalf("said twice: %q", res.Text)
	}
	hold := f.event("s", api.BurstStop)
	if !hold.Hold || !strings.Contains(hold.Text, "a.fk") || !strings.Contains(hold.Text, "b.fk") || !strings.Contains(hold.Text, "Your turn is ending") {
		t.Fatalf("turn B's first stop: %+v", hold)
	}
	if res := f.event("s", api.BurstStop); res.Hold || res.Text != "" {
		t.Fatalf("turn B's second stop: %+v", res)
	}
	// The next turn begins anew: with no edit, its stop says nothing.
	if res := f.event("s", api.BurstStop); res.Hold {
		t.Fatalf("a turn without edits held: %+v", res)
	}
}

// TestBurstRepairedState: a state the next edit of the same burst repairs
// (a name used before it is defined) is never said; an error of the file's
// own that moved with the edit is not new.
func TestBurstRepairedState(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"lib.fk": "def F 1\n", "a.fk": "import lib\nERROR of a's own\ncall F 1\n"})
	f.edit("s", "a.fk", "import lib\ncall H 1\nERROR of a's own\ncall F 1\n") // H is not defined yet
	f.edit("s", "lib.fk", "def F 1\ndef H 1\n")
	if res := f.event("s", api.BurstEnd); res.Text != "" || !res.Complete {
		t.Fatalf("the burst's end: %+v", res)
	}
}

// TestBurstSessions: two sessions' bursts on one workspace stay apart: the
// session that broke the callers hears of them; the one that edited a file
// nothing depends on hears nothing, though the breakage is on disk.
func TestBurstSessions(t *testing.T) {
	t.Parallel()
	f := newFixture(t, project)
	f.edit("x", "lib.fk", "def F 2\ndef G 1\n")
	f.edit("y", "alone.fk", "ERROR of alone's own\n\n")
	if res := f.event("y", api.BurstEnd); res.Text != "" {
		t.Fatalf("session y heard: %q", res.Text)
	}
	if res := f.event("x", api.BurstEnd); len(files(res)) != 2 {
		t.Fatalf("session x's end: %+v", res)
	}
}

// TestBurstEach: with each, every edit's own answer says what is new
// since the burst began, with the files it broke, each error once.
func TestBurstEach(t *testing.T) {
	t.Parallel()
	f := newFixture(t, project)
	ctx := context.Background()
	each := func(file, text string) api.BurstResult {
		t.Helper()
		f.event("s", api.BurstBeforeEdit, file)
		os.WriteFile(filepath.Join(f.root, file), []byte(text), 0o644)
		res, err := f.tr.Burst(ctx, api.BurstParams{Session: "s", Event: api.BurstAfterEdit, Files: []string{file}, Each: true})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := each("lib.fk", "def F 2\ndef G 1\n"); len(files(res)) != 2 {
		t.Fatalf("the breaking edit's answer: %+v", res)
	}
	if res := each("alone.fk", "ERROR of alone's own\n\n"); res.Text != "" {
		t.Fatalf("the next edit repeated: %q", res.Text)
	}
	if res := f.event("s", api.BurstEnd); res.Text != "" {
		t.Fatalf("the end repeated: %q", res.Text)
	}
	if res := f.event("s", api.BurstStop); !res.Hold {
		t.Fatalf("the turn with errors still there was not held: %+v", res)
	}
}

// TestBurstUnseen: an edit whose file lspkit did not see before (no
// before-edit event, no text from the host) lists the file's errors and
// says it could not tell what is new; one whose text the host gave is
// compared as any other.
func TestBurstUnseen(t *testing.T) {
	t.Parallel()
	f := newFixture(t, project)
	os.WriteFile(filepath.Join(f.root, "alone.fk"), []byte("ERROR of alone's own\nERROR new\n"), 0o644)
	f.event("s", api.BurstAfterEdit, "alone.fk")
	res := f.event("s", api.BurstEnd)
	if res.Complete || !strings.Contains(res.Reason, "did not see alone.fk before") || len(res.New["alone.fk"]) != 2 {
		t.Fatalf("an unseen edit: %+v", res)
	}
	old := "def F 1\ndef G 1\n"
	os.WriteFile(filepath.Join(f.root, "lib.fk"), []byte("def F 2\ndef G 1\n"), 0o644)
	ctx := context.Background()
	if _, err := f.tr.Burst(ctx, api.BurstParams{Session: "s", Event: api.BurstAfterEdit, Files: []string{"lib.fk"}, Before: map[string]string{"lib.fk": old}}); err != nil {
		t.Fatal(err)
	}
	if res := f.event("s", api.BurstEnd); !res.Complete || len(files(res)) != 2 {
		t.Fatalf("an edit whose text before the host gave: %+v", res)
	}
}

// TestBurstNotOurs: files no server checks, outside the root or excluded
// make no burst; an unknown event is invalid params.
func TestBurstNotOurs(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"README.md": "# x\n", "lib.fk": "def F 1\n"})
	f.edit("s", "README.md", "# y\n")
	f.event("s", api.BurstBeforeEdit, "/etc/hosts")
	if res := f.event("s", api.BurstEnd); res.Text != "" || len(res.Edited) != 0 {
		t.Fatalf("an edit of files lspkit does not check: %+v", res)
	}
	if _, err := f.tr.Burst(context.Background(), api.BurstParams{Event: "later"}); err == nil || !strings.Contains(err.Error(), "event") {
		t.Fatalf("an unknown event: %v", err)
	}
}

// TestBurstStopsAtOnce: two stops of one turn at once (a host that runs
// two hooks, or says idle twice) hold it once.
func TestBurstStopsAtOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, project)
	f.edit("s", "lib.fk", "def F 2\ndef G 1\n")
	holds := make(chan bool, 2)
	for range 2 {
		go func() {
			res, err := f.tr.Burst(context.Background(), api.BurstParams{Session: "s", Event: api.BurstStop})
			holds <- err == nil && res.Hold
		}()
	}
	if a, b := <-holds, <-holds; a == b {
		t.Fatalf("two stops at once: held %v and %v, want one of them", a, b)
	}
}

// TestBurstNewAndDeletedFiles: a file the burst makes is new with its own
// errors, and the files that depend on it keep the errors they had; a
// file it deletes breaks those that used it, and their errors of their
// own stay old.
func TestBurstNewAndDeletedFiles(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"lib.fk": "def F 1\n", "a.fk": "import lib\ncall F 1\n", "b.fk": "import lib\ncall F 1\nERROR of b's own\n",
		"user.fk": "import extra\nERROR of user's own\n"})
	f.edit("s", "extra.fk", "def G 1\nERROR in the new file\n")
	res := f.event("s", api.BurstEnd)
	if got := files(res); len(got) != 1 || len(res.New["extra.fk"]) != 1 || !res.Complete {
		t.Fatalf("a new file: %+v", res)
	}
	f.event("s", api.BurstBeforeEdit, "lib.fk")
	os.Remove(filepath.Join(f.root, "lib.fk"))
	f.event("s", api.BurstAfterEdit, "lib.fk")
	res = f.event("s", api.BurstEnd)
	if len(res.New["a.fk"]) != 1 || len(res.New["b.fk"]) != 1 || res.New["a.fk"][0].Message != "undefined: F" || strings.Contains(res.Text, "of b's own") {
		t.Fatalf("a deleted file: %+v\n%s", res.New, res.Text)
	}
}

// TestBurstBeforeUnknown: when the files as they were cannot be checked
// in time, no error is called new — each file with errors now is named
// as not compared, and the feedback says why.
func TestBurstBeforeUnknown(t *testing.T) {
	t.Parallel()
	slow := lsptest.Behavior{Linked: true, SilentOn: func(text string) bool { return strings.Contains(text, "never settles") }}
	f := newFixtureOf(t, map[string]string{"lib.fk": "def F 1\nnever settles\n", "a.fk": "import lib\ncall F 1\n"}, slow)
	f.edit("s", "lib.fk", "def F 2\n")
	res, err := f.tr.Burst(context.Background(), api.BurstParams{Session: "s", Event: api.BurstEnd, TimeoutMs: int(servertest.Scale(3 * time.Second).Milliseconds())})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.New) != 0 || res.Complete || !strings.Contains(res.Reason, "a.fk had errors after the edits but could not be checked before them") || !strings.Contains(res.Text, "LSP could not check every file") {
		t.Fatalf("a before that could not be checked: %+v", res)
	}
}
