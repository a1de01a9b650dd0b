package conformance

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/protocol"
)

// runFake runs the scripted session against an in-process fake server.
func runFake(t *testing.T, b lsptest.Behavior, timeout time.Duration) *Card {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.fk"), []byte("héllo 🙂 world\nworld ERROR\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := &lsptest.Launcher{Behaviors: map[string]lsptest.Behavior{"b": b}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	card, err := RunSession(ctx, protocol.NewValidator(), SessionOptions{
		Command: client.Command{Path: "fake", Args: []string{"b"}, Dir: root}, Launch: l.Launch,
		Root: root, File: "a.fk", LanguageID: "fake", Timeout: timeout, Name: "fake",
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := l.Alive(); n != 0 {
		t.Errorf("%d fake servers still running after the session", n)
	}
	return card
}

// TestConformWellBehaved: a fake server that keeps the protocol scores
// clean: no false violation.
func TestConformWellBehaved(t *testing.T) {
	t.Parallel()
	card := runFake(t, lsptest.Behavior{}, 30*time.Second) // a loaded machine's answers are not violations
	if card.Violations() != 0 {
		t.Fatalf("violations on a well-behaved server:\n%s", card.Markdown())
	}
	for _, r := range card.Rows {
		if r.Check == CheckExit && r.Verdict != VerdictPass {
			t.Errorf("the exit check: %+v", r)
		}
	}
}

// TestConformFindsEveryLie: the liar breaks the protocol once in each way
// the card checks; every check fails with the planted violation as its
// evidence, with its JSON path where it has one.
func TestConformFindsEveryLie(t *testing.T) {
	t.Parallel()
	card := runFake(t, lsptest.Behavior{Liar: true}, 2*time.Second) // its hung request times out
	want := map[string][]string{
		CheckServerTypes:      {"params.diagnostics[0].message: missing required member", "params.diagnostics[0].severity: the number 9 is not a value of the closed enumeration DiagnosticSeverity"},
		CheckBeforeInitialize: {"textDocument/publishDiagnostics before the initialize answer"},
		CheckAfterShutdown:    {"the request workspace/configuration after the shutdown answer"},
		CheckExit:             {"exit status 1 after shutdown and exit"},
		CheckDirection:        {"textDocument/hover sent by the server as a request"},
		CheckUnadvertised:     {"textDocument/linkedEditingRange, not advertised, answered with a result"},
		CheckAdvertised:       {"textDocument/documentSymbol advertised, answered MethodNotFound"},
		CheckServerRequests:   {"workspace/diagnostic/refresh, which the client did not offer"},
		CheckProgress:         {"$/progress on token \"nobody\"", "token \"made\" ended without being begun, or twice"},
		CheckRegistrations:    {"registers textDocument/hover, whose capabilities.textDocument.hover.dynamicRegistration"},
		CheckVersions:         {"for version 99; the client sent version"},
		CheckPositions:        {"character 50 past the end of line 0"},
		CheckAnswered:         {"textDocument/foldingRange"},
		CheckCancel:           {"cancelled textDocument/documentSymbol answered with error -32601"},
	}
	for _, r := range card.Rows {
		w, ok := want[r.Check]
		if !ok {
			continue
		}
		if r.Verdict != VerdictFail {
			t.Errorf("%s: %s, want fail", r.Check, r.Verdict)
			continue
		}
		all := strings.Join(r.Evidence, "\n")
		for _, e := range w {
			if !strings.Contains(all, e) {
				t.Errorf("%s: no evidence %q in:\n%s", r.Check, e, all)
			}
		}
	}
	if t.Failed() {
		t.Logf("the card:\n%s", card.Markdown())
	}
}
