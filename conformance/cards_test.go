package conformance

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/registry"
)

var updateCards = flag.Bool("update-cards", false, "rewrite reports/*.md from the installed servers' cards")

// TestConformCards scores every server `lspkit install --tested` installs
// with the live conform session and compares each card with the one kept
// in reports/ID.md: the server's name and version and every failing check
// with its first evidence (numbers aside) must be as stored — a server
// upgrade or a change of lspkit's checks shows as a changed card in
// review. -update-cards rewrites the files.
func TestConformCards(t *testing.T) {
	t.Parallel()
	specs, err := registry.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	store := registry.NewStore(registry.DefaultDir(), nil)
	v := protocol.NewValidator()
	var ids []string
	for _, id := range slices.Sorted(maps.Keys(specs)) {
		if specs[id].Tested {
			ids = append(ids, id)
		}
	}
	if len(ids) < 11 {
		t.Fatalf("%d tested servers", len(ids))
	}
	for _, id := range ids {
		spec := specs[id]
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			servertest.Binary(t, spec.Command)
			path, ok := store.Find(spec)
			if !ok {
				t.Fatalf("%s not found", spec.Command)
			}
			root := t.TempDir()
			if resolved, err := filepath.EvalSymlinks(root); err == nil {
				root = resolved
			}
			file, ok, err := WriteWorkspace(root, spec.Language)
			if err != nil || !ok {
				t.Fatalf("no workspace for %s: %v", spec.Language, err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), servertest.Scale(10*time.Minute))
			defer cancel()
			var env []string
			for k, v := range spec.Env {
				env = append(env, k+"="+v)
			}
			card, err := RunSession(ctx, v, SessionOptions{
				Command: client.Command{Path: path, Args: spec.Args, Dir: root, Env: store.OnPath(env)},
				Root:    root, File: file, LanguageID: spec.LanguageID(file), Name: cardName(spec),
				// A request a server leaves unanswered this long is a liveness
				// violation; a loaded machine's slow first answers are not.
				Timeout:               servertest.Scale(2 * time.Minute),
				InitializationOptions: store.Expand(spec.InitializationOptions),
				Settings:              store.Expand(spec.Settings),
				Lspkit:                "(this commit)",
			})
			if err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(card.Markdown(), root, "$ROOT")
			stored := filepath.Join("reports", id+".md")
			if *updateCards {
				if err := os.WriteFile(stored, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			data, err := os.ReadFile(stored)
			if err != nil {
				t.Fatalf("%v: run go test ./conformance -run TestConformCards -update-cards", err)
			}
			if want, have := cardKey(string(data)), cardKey(got); want != have && !onlyTiming(want, have) {
				t.Errorf("%s's card changed: update %s (go test ./conformance -run TestConformCards -update-cards) and review it.\nstored:\n%s\nnow:\n%s\nthe card now:\n%s", id, stored, want, have, got)
			}
		})
	}
}

// cardName names a server that does not name itself (serverInfo): its id
// and the pinned package it is installed from.
func cardName(spec *registry.Spec) string {
	if v := spec.Version(); v != "" {
		return spec.ID + " (" + v + ")"
	}
	return spec.ID
}

var digits = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// uuids are random tokens (pylsp's progress tokens): not part of a card's
// key either.
var uuids = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// cardKey is what of a card must not change unseen: its heading and each
// failing check with its first evidence, numbers aside.
// timingDependent is evidence a server gives or not by the machine's pace:
// a publish for a document after the client closed it is a late run of
// the server's own (pylsp lints on a timer: under slowbox its run for the
// last change can land after the session's close, and does not when the
// machine keeps up).
var timingDependent = regexp.MustCompile(`^documents: diagnostic versions: diagnostics of \S+ after the client closed it$`)

// onlyTiming reports whether two card keys differ only in timing-dependent
// lines.
func onlyTiming(want, have string) bool {
	keep := func(key string) []string {
		var out []string
		for _, line := range strings.Split(key, "\n") {
			if !timingDependent.MatchString(line) {
				out = append(out, line)
			}
		}
		return out
	}
	return slices.Equal(keep(want), keep(have))
}

func cardKey(markdown string) string {
	var out []string
	for _, line := range strings.Split(markdown, "\n") {
		switch {
		case strings.HasPrefix(line, "# "):
			out = append(out, line)
		case strings.Contains(line, " | fail | "):
			cells := strings.Split(line, " | ")
			first := ""
			if len(cells) >= 4 {
				first, _, _ = strings.Cut(strings.TrimSuffix(cells[3], " |"), " · ")
			}
			out = append(out, fmt.Sprintf("%s: %s", strings.TrimPrefix(cells[0], "| "), digits.ReplaceAllString(uuids.ReplaceAllString(first, "UUID"), "#")))
		}
	}
	return strings.Join(out, "\n")
}

// TestOnlyTiming: cards that differ in a late publish after close alone
// are the same card; any other difference is not.
func TestOnlyTiming(t *testing.T) {
	base := "# pylsp 1.7.1\ncapabilities: progress tokens: x"
	late := "# pylsp 1.7.1\ncapabilities: progress tokens: x\ndocuments: diagnostic versions: diagnostics of main.py after the client closed it"
	if !onlyTiming(base, late) || !onlyTiming(late, base) {
		t.Error("a late publish after close alone made the cards differ")
	}
	if onlyTiming(base, base+"\ndocuments: positions: y") {
		t.Error("another difference was taken for timing")
	}
}
