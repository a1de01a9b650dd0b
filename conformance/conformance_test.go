package conformance

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/service/features"
	"github.com/lspkit/lspkit/service/orchestrator"
	"github.com/lspkit/lspkit/service/registry"
	"github.com/lspkit/lspkit/transport"
)

var recordFlag = flag.Bool("record", false, "re-record the transcripts in testdata/ from the installed servers")

func TestMain(m *testing.M) {
	if os.Getenv("LSPKIT_RECORD") != "" {
		os.Exit(recordMain())
	}
	code := m.Run()
	printSummary()
	os.Exit(code)
}

// replayer runs a transcript's replay in-process, through the
// orchestrator's and the client's Launch seam: every start of the server
// replays the transcript from its beginning. report returns the
// divergences found so far.
func replayer(t *testing.T, transcript string) (launch client.Launch, report, waiting func() string) {
	t.Helper()
	tr, err := ReadTranscript(transcript)
	if err != nil {
		t.Fatal(err)
	}
	servers := serversDir(t)
	var mu sync.Mutex
	var b strings.Builder
	var last *Replayer
	launch = func(context.Context, client.Command) (client.Proc, error) {
		r := NewReplayer(tr, servers)
		mu.Lock()
		last = r
		mu.Unlock()
		r.OnDivergence = func(d string) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(&b, "%s\n\n", d)
		}
		return lsptest.Serve(r.Serve), nil
	}
	report = func() string {
		mu.Lock()
		defer mu.Unlock()
		return b.String()
	}
	waiting = func() string {
		mu.Lock()
		r := last
		mu.Unlock()
		if r == nil {
			return "the server was never started"
		}
		return "the replay waits for:\n" + strings.Join(r.Waiting(5), "\n")
	}
	return launch, report, waiting
}

// recordMain is the recording proxy: LSPKIT_RECORD names the transcript,
// the arguments after the test binary's are the server.
func recordMain() int {
	f, err := os.Create(os.Getenv("LSPKIT_RECORD"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "record:", err)
		return 2
	}
	defer f.Close()
	var argv []string
	json.Unmarshal([]byte(os.Getenv("LSPKIT_RECORD_ARGV")), &argv)
	if err := Record(context.Background(), NewWriter(f), os.Stdin, os.Stdout, os.Stderr, argv); err != nil {
		fmt.Fprintln(os.Stderr, "record:", err)
	}
	return 0
}

// outcome is what a scenario's steps saw, as the daemon reports it.
type outcome struct {
	Error      []api.Diagnostic `json:"error"`
	Fixed      []api.Diagnostic `json:"fixed"`
	Definition []api.Location   `json:"definition"`
	Hover      string           `json:"hover"`
}

// run drives a scenario through an orchestrator whose server for it is
// command (with env), and returns what each step saw.
func run(t *testing.T, sc scenario, root string, command string, args []string, env map[string]string, launch client.Launch, report func() string) (outcome, time.Duration) {
	t.Helper()
	fatal := func(format string, args ...any) {
		t.Helper()
		if report != nil {
			format += "\nreplay divergences so far:\n%s"
			args = append(args, report())
		}
		t.Fatalf(format, args...)
	}
	cmdJSON, _ := json.Marshal(command)
	argsJSON, _ := json.Marshal(args)
	envJSON, _ := json.Marshal(env)
	servers := fmt.Sprintf(`%q: {"enabled": true, "command": %s, "args": %s, "env": %s}`, sc.server, cmdJSON, argsJSON, envJSON)
	if sc.config != "" {
		servers += ", " + sc.config
	}
	// A cold server beside others on a loaded machine is given its time:
	// the row asserts what it answers, not how fast.
	cfg, err := config.Parse([]byte(fmt.Sprintf(`{"lsp": {"autoInstall": false, "firstTouchTimeout": %d, "diagnosticTimeout": %d, "servers": {%s}}}`,
		servertest.Scale(90*time.Second).Milliseconds(), servertest.Scale(60*time.Second).Milliseconds(), servers)), "scenario")
	if err != nil {
		t.Fatal(err)
	}
	// The daemon's log, for a failure to say why (a check that did not
	// settle on a loaded machine).
	var logBuf lockedBuffer
	log := slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	o, err := orchestrator.New(orchestrator.Options{Root: root, Config: cfg, Launch: launch, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	feat := features.New(o)
	ctx, cancel := context.WithTimeout(context.Background(), servertest.Scale(5*time.Minute))
	defer cancel()
	start := time.Now()
	var out outcome
	check := func(text string) []api.Diagnostic {
		p := api.CheckParams{FilePath: sc.file, Text: &text}
		if sc.disk {
			// A server of saved files: the text is written, then checked.
			if err := os.WriteFile(filepath.Join(root, sc.file), []byte(text), 0o644); err != nil {
				fatal("%v", err)
			}
			p.Text = nil
		}
		res, err := o.Check(ctx, p)
		if err != nil {
			fatal("%v", err)
		}
		for _, s := range res.Servers {
			if s.Verdict != api.VerdictSettled {
				fatal("%s: %s %s %s\nthe daemon's log (its end):\n%s", sc.name, s.ID, s.Verdict, s.Reason, logBuf.tail(60))
			}
		}
		return res.Diagnostics
	}
	out.Error = check(sc.broken)
	out.Fixed = check(sc.fixed)
	if sc.def.Line > 0 {
		def := sc.def
		def.File = sc.file
		res, err := feat.Definition(ctx, def)
		if err != nil {
			fatal("definition: %v", err)
		}
		out.Definition = res.Locations
	}
	if sc.hov.Line > 0 {
		hov := sc.hov
		hov.File = sc.file
		res, err := feat.Hover(ctx, hov)
		if err != nil {
			fatal("hover: %v", err)
		}
		if res.Content != nil {
			out.Hover = *res.Content
		}
	}
	o.Shutdown(ctx)
	return out, time.Since(start)
}

// project writes a scenario's files into a new root, its file with the
// fix saved: the checks give their texts (each check's alone), and the
// navigation that follows answers from the disk.
func project(t *testing.T, sc scenario) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "ws") // one name in every run: workspace folders carry it
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeProject(root, sc); err != nil {
		t.Fatal(err)
	}
	return root
}

// writeProject writes sc's files under root, sc.file with its fixed text.
func writeProject(root string, sc scenario) error {
	for name, text := range sc.files {
		if name == sc.file {
			text = sc.fixed
		}
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// checkOutcome holds a live run to what a correct client must see.
func checkOutcome(t *testing.T, sc scenario, out outcome) {
	t.Helper()
	if len(out.Error) == 0 {
		t.Fatalf("%s: no error reported for the broken text", sc.name)
	}
	if sc.errAt[0] > 0 && (out.Error[0].Line != sc.errAt[0] || out.Error[0].Character != sc.errAt[1]) {
		t.Fatalf("%s: error at %d:%d, want %d:%d: %+v", sc.name, out.Error[0].Line, out.Error[0].Character, sc.errAt[0], sc.errAt[1], out.Error)
	}
	if len(out.Fixed) != 0 {
		t.Fatalf("%s: errors after the fix: %+v", sc.name, out.Fixed)
	}
}

// summary rows for the table printed after the run.
var summary []string

// printSummary prints the live suite's table to stdout, and to the file
// LSPKIT_CONFORMANCE_SUMMARY names (the test script shows it after a quiet
// go test).
func printSummary() {
	if len(summary) == 0 {
		return
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "SERVER\tVERSION\tSCENARIO\tRESULT\tTIME")
	for _, row := range summary {
		fmt.Fprintln(w, row)
	}
	w.Flush()
	fmt.Print(b.String())
	if path := os.Getenv("LSPKIT_CONFORMANCE_SUMMARY"); path != "" {
		os.WriteFile(path, []byte(b.String()), 0o644)
	}
}

// TestLive runs every scenario against the installed real servers through
// the daemon's orchestrator (recording transcripts with -record).
func TestLive(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			// The core servers' rows run in the test command; the others
			// in CI's live pass.
			find := servertest.Row
			if sc.ci {
				find = servertest.Binary
			}
			bin := find(t, sc.binary)
			root := project(t, sc)
			result := "FAIL"
			var took time.Duration
			defer func() {
				summary = append(summary, fmt.Sprintf("%s\t%s\terror → fix → definition → hover\t%s\t%s", sc.name, pinned(t, sc.server), result, took.Round(time.Millisecond)))
			}()
			args := serverArgs(t, sc.server)
			var out outcome
			if !*recordFlag {
				out, took = run(t, sc, root, bin, args, nil, nil, nil)
				checkOutcome(t, sc, out)
				result = "ok"
				return
			}
			exe, _ := os.Executable()
			raw := filepath.Join(t.TempDir(), "raw.jsonl")
			argv, _ := json.Marshal(append([]string{bin}, args...))
			out, took = run(t, sc, root, exe, nil, map[string]string{"LSPKIT_RECORD": raw, "LSPKIT_RECORD_ARGV": string(argv)}, nil, nil)
			checkOutcome(t, sc, out)
			f, err := os.OpenFile(raw, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			NewWriter(f).Expect("outcome", out)
			f.Close()
			data, _ := os.ReadFile(raw)
			// No path of the recording machine stays in a transcript:
			// the root, the server store, then the test's temporary
			// directory, the home directory and the temporary directory
			// as the servers' logs name them.
			home, _ := os.UserHomeDir()
			data = Normalize(data, root, RootPlaceholder, filepath.Dir(root), RootPlaceholder+"/..", serversDir(t), ServersPlaceholder,
				filepath.Dir(filepath.Dir(root)), "$TMP/test", home, "$HOME", os.TempDir(), "$TMP")
			if err := os.WriteFile(filepath.Join("testdata", sc.name+".jsonl"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			result = "ok (recorded)"
		})
	}
}

// pinned is the version the registry pins for a built-in server.
func pinned(t *testing.T, id string) string {
	specs, err := registry.Builtins()
	if err != nil || specs[id] == nil {
		t.Fatalf("no built-in %s: %v", id, err)
	}
	return specs[id].Version()
}

// serverArgs returns the built-in server's arguments.
func serverArgs(t *testing.T, id string) []string {
	o, err := orchestrator.New(orchestrator.Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := o.ClientConfig(id, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Command.Args
}

// serversDir is the install script's directory, which $SERVERS stands for.
func serversDir(t *testing.T) string {
	o, err := orchestrator.New(orchestrator.Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return o.Store().Dir()
}

// replay runs a scenario against its transcript, returning the outcome and
// the replayer's divergences.
func replay(t *testing.T, sc scenario, transcript string) (outcome, string) {
	t.Helper()
	exe, _ := os.Executable() // any existing file: the replay runs in-process
	launch, report, waiting := replayer(t, transcript)
	out, _ := run(t, sc, project(t, sc), exe, nil, nil, launch, func() string { return report() + waiting() })
	// Compare as JSON says it: a code is a number, whatever Go type held it.
	raw, _ := json.Marshal(out)
	var round outcome
	json.Unmarshal(raw, &round)
	return round, strings.TrimSpace(report())
}

// recorded returns the outcome the live run recorded in a transcript.
func recorded(t *testing.T, tr *Transcript) outcome {
	t.Helper()
	raw, ok := tr.Expectation("outcome")
	if !ok {
		t.Fatal("the transcript has no recorded outcome")
	}
	var want outcome
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	return want
}

// TestReplay runs the daemon against every transcript offline: it must send
// what the recording's client sent and see what the live run saw.
func TestReplay(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			if problem := replayProblem(t, sc, filepath.Join("testdata", sc.name+".jsonl")); problem != "" {
				t.Fatal(problem)
			}
		})
	}
}

// replayProblem replays a transcript and says what went wrong, if anything:
// the replayer's divergences, or an outcome that differs from the live
// run's, with the server messages that carried the file's diagnostics.
func replayProblem(t *testing.T, sc scenario, path string) string {
	tr, err := ReadTranscript(path)
	if err != nil {
		t.Fatal(err)
	}
	got, divergences := replay(t, sc, path)
	if divergences != "" {
		return "replay diverged:\n" + divergences
	}
	want := recorded(t, tr)
	// A location's source line comes from the file, not from the server:
	// not part of what the transcript records.
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(api.Location{}, "Source")); diff != "" {
		return fmt.Sprintf("outcome differs from the live run (-recorded +replayed):\n%s\nthe server messages that carried %s's diagnostics: %s",
			diff, sc.file, strings.Join(diagnosticSources(tr, sc.file, novel(want, got)), ", "))
	}
	return ""
}

// novel returns the diagnostic messages the replay saw that the live run
// did not.
func novel(want, got outcome) []string {
	seen := map[string]bool{}
	for _, d := range append(want.Error, want.Fixed...) {
		seen[d.Message] = true
	}
	var out []string
	for _, d := range append(got.Error, got.Fixed...) {
		if !seen[d.Message] {
			out = append(out, d.Message)
		}
	}
	return out
}

// diagnosticSources names the recorded server messages that carried
// diagnostics for file (publishes and pull results), marking those that
// hold one of the messages in suspects.
func diagnosticSources(tr *Transcript, file string, suspects []string) []string {
	uri := "file://" + RootPlaceholder + "/" + file
	pulls := map[string]bool{} // request ids of pulls for file
	var out []string
	for _, e := range tr.Entries {
		m, text := method(e.Msg), string(e.Msg)
		switch {
		case e.Dir == ClientToServer && m == "textDocument/diagnostic" && strings.Contains(text, uri):
			id, _ := idOf(e.Msg)
			pulls[string(id)] = true
		case e.Dir == ServerToClient && m == "textDocument/publishDiagnostics" && strings.Contains(text, uri):
			out = append(out, fmt.Sprintf("line %d (textDocument/publishDiagnostics)%s", e.Line, mark(text, suspects)))
		case e.Dir == ServerToClient && m == "":
			if id, ok := idOf(e.Msg); ok && pulls[string(id)] {
				out = append(out, fmt.Sprintf("line %d (textDocument/diagnostic result)%s", e.Line, mark(text, suspects)))
			}
		}
	}
	return out
}

// mark flags a message that holds one of the suspect texts.
func mark(msg string, suspects []string) string {
	for _, s := range suspects {
		quoted, _ := json.Marshal(s)
		if strings.Contains(msg, strings.Trim(string(quoted), `"`)) {
			return " ← holds what the replay saw instead"
		}
	}
	return ""
}

// TestReplayCorruptedServerMessage: a recorded server message changed (its
// diagnostic's message) makes the replay fail with a diff that names it.
func TestReplayCorruptedServerMessage(t *testing.T) {
	sc := scenarios[0] // gopls
	data, err := os.ReadFile(filepath.Join("testdata", sc.name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := ParseTranscript(data)
	target := -1
	for _, e := range tr.Entries {
		if e.Dir == ServerToClient && method(e.Msg) == "textDocument/publishDiagnostics" && strings.Contains(string(e.Msg), "cannot use") {
			target = e.Line // the last one: what the client holds when the error step settles
		}
	}
	if target < 0 {
		t.Fatal("no publishDiagnostics with the error in the gopls transcript")
	}
	lines := strings.Split(string(data), "\n")
	lines[target-1] = strings.Replace(lines[target-1], "cannot use", "CORRUPTED", 1)
	path := filepath.Join(t.TempDir(), "corrupted.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	problem := replayProblem(t, sc, path)
	if !strings.Contains(problem, "CORRUPTED") || !strings.Contains(problem, fmt.Sprintf("line %d (textDocument/publishDiagnostics) ← holds what the replay saw instead", target)) {
		t.Fatalf("the corrupted line %d is not named:\n%s", target, problem)
	}
	t.Logf("reported:\n%s", problem)
}

// TestReplayUnansweredConfiguration: a client that does not answer
// workspace/configuration fails the replay, which names the request.
func TestReplayUnansweredConfiguration(t *testing.T) {
	tr, err := ReadTranscript(filepath.Join("testdata", "gopls.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	r := NewReplayer(tr, "")
	toServer, fromClient := io.Pipe()
	done := make(chan struct{})
	go func() {
		r.Serve(toServer, io.Discard)
		close(done)
	}()
	// The client plays its recorded part, except the configuration answers.
	w := transport.NewWriter(fromClient)
	asked := map[string]bool{}
	skipped := 0
	for _, e := range tr.Entries {
		if e.Dir == ServerToClient && method(e.Msg) == "workspace/configuration" {
			id, _ := idOf(e.Msg)
			asked[string(id)] = true
		}
		if e.Dir != ClientToServer {
			continue
		}
		if id, ok := idOf(e.Msg); ok && method(e.Msg) == "" && asked[string(id)] {
			skipped++
			continue
		}
		w.WriteFrame([]byte(strings.ReplaceAll(string(e.Msg), RootPlaceholder, "/ws")))
	}
	fromClient.Close()
	<-done
	report := strings.Join(r.Divergences(), "\n")
	if skipped == 0 || !strings.Contains(report, "the client never sent the response to workspace/configuration") {
		t.Fatalf("%d answers skipped; report:\n%s", skipped, report)
	}
}

// TestReplayClient drives the client package directly (no orchestrator)
// through each transcript with the configuration the daemon gives that
// server: the same messages must go out, and the diagnostics, definition
// and hover must be the live run's.
func TestReplayClient(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			if sc.disk {
				// Its texts reach the server as the daemon's reading of the
				// disk sent them (open, change, save): TestReplay replays
				// that; the client alone gives texts, which such a server
				// does not read.
				t.Skip("a server of saved files: replayed through the daemon (TestReplay)")
			}
			path, _ := filepath.Abs(filepath.Join("testdata", sc.name+".jsonl"))
			tr, err := ReadTranscript(path)
			if err != nil {
				t.Fatal(err)
			}
			want := recorded(t, tr)
			root := project(t, sc)
			exe, _ := os.Executable() // any existing file: the replay runs in-process
			launch, report, _ := replayer(t, path)
			cfgJSON := fmt.Sprintf(`{"lsp": {"servers": {%q: {"command": %q}}}}`, sc.server, exe)
			cfg, err := config.Parse([]byte(cfgJSON), "test")
			if err != nil {
				t.Fatal(err)
			}
			o, err := orchestrator.New(orchestrator.Options{Root: root, Config: cfg})
			if err != nil {
				t.Fatal(err)
			}
			ccfg, err := o.ClientConfig(sc.server, root)
			if err != nil {
				t.Fatal(err)
			}
			ccfg.Launch = launch
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c, err := client.Start(ctx, ccfg)
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(root, sc.file)
			messages := func(text string) []string {
				uri, v, err := c.Sync(ctx, file, sc.lang, text)
				if err != nil {
					t.Fatal(err)
				}
				if s := c.WaitSettled(ctx, uri, v); s != client.Settled {
					t.Fatalf("%v\n%s", s, report())
				}
				var out []string
				for _, d := range c.Diagnostics(uri) {
					if d.Severity == nil || *d.Severity == 1 {
						out = append(out, client.MessageText(d))
					}
				}
				return out
			}
			texts := func(ds []api.Diagnostic) []string {
				var out []string
				for _, d := range ds {
					out = append(out, d.Message)
				}
				return out
			}
			if got := messages(sc.broken); !slices.Equal(got, texts(want.Error)) {
				t.Fatalf("errors %q, live run %q", got, texts(want.Error))
			}
			if got := messages(sc.fixed); !slices.Equal(got, texts(want.Fixed)) {
				t.Fatalf("after the fix %q, live run %q", got, texts(want.Fixed))
			}
			uri, _ := protocol.FileURI(file)
			at := func(p api.PositionParams) protocol.Position {
				line := strings.Split(sc.fixed, "\n")[p.Line-1]
				if p.Symbol == "" {
					return protocol.Position{Line: uint32(p.Line - 1), Character: c.Mapper().Column(line, p.Character-1)}
				}
				col := strings.Index(line, p.Symbol)
				return protocol.Position{Line: uint32(p.Line - 1), Character: c.Mapper().Column(line, utf8.RuneCountInString(line[:col]))}
			}
			if sc.def.Line > 0 {
				locs, err := c.Definition(ctx, uri, at(sc.def))
				if err != nil || len(locs) != len(want.Definition) || (len(locs) > 0 && int(locs[0].Range.Start.Line)+1 != want.Definition[0].Line) {
					t.Fatalf("definition %+v %v, live run %+v", locs, err, want.Definition)
				}
			}
			if sc.hov.Line > 0 {
				text, _, err := c.Hover(ctx, uri, at(sc.hov))
				if err != nil || text != want.Hover {
					t.Fatalf("hover %q %v, live run %q", text, err, want.Hover)
				}
			}
			if err := c.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			if d := strings.TrimSpace(report()); d != "" {
				t.Fatalf("replay diverged:\n%s", d)
			}
		})
	}
}

// lockedBuffer is a log written by the daemon's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// tail is the last n lines, each cut at 300 bytes.
func (b *lockedBuffer) tail(n int) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	lines := strings.Split(strings.TrimRight(b.buf.String(), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		if len(l) > 300 {
			lines[i] = l[:300] + "…"
		}
	}
	return strings.Join(lines, "\n")
}

// languagesLive reports whether the servers CI's live suite alone tests
// (servers.json testedIn "ci", installed by lspkit install --tested --ci)
// are to run: CI's live pass (LSPKIT_CI_LIVE=1, .ci/run).
func languagesLive() bool { return servertest.CILive() }
