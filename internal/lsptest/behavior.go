package lsptest

import (
	"fmt"
	"strings"
	"time"

	"github.com/lspkit/lspkit/protocol"
)

// Behavior says how a fake server behaves. The zero Behavior is a well
// behaved server with incremental sync that publishes, with the document's
// version, one error per line containing "ERROR" and answers hover and
// definition.
type Behavior struct {
	// Diagnose returns a document's diagnostics for its text; nil uses
	// ErrorLines.
	Diagnose func(text string) []protocol.Diagnostic
	// Waves publishes the diagnostics in this many publishes for one
	// version, the earlier ones with a prefix of the list (gopls's analyzer
	// findings come in a later wave); 0 or 1 is one publish.
	Waves int
	// WaveGap separates the waves.
	WaveGap time.Duration
	// Delay is waited before publishing, and before answering requests.
	Delay time.Duration
	// Unversioned publishes without a version.
	Unversioned bool
	// LateClear, on a didOpen of a document the server had closed,
	// publishes at once the empty list without a version that clangd
	// publishes on didClose, before the version's own publish (after
	// Delay): what a client sees when it reads clangd's clear only after
	// it sent the document again.
	LateClear bool
	// Pull makes the server answer textDocument/diagnostic (announced in
	// its capabilities) and publish nothing.
	Pull bool
	// PullCancels, with Pull, answers the first this many pulls with
	// ServerCancelled asking for the pull again (retriggerRequest), as a
	// server busy loading its project does.
	PullCancels int
	// Push, with Pull, makes the server publish these diagnostics for each
	// version too (a server with findings of both kinds).
	Push func(text string) []protocol.Diagnostic
	// Silent publishes nothing at all.
	Silent bool
	// SilentOn publishes nothing for the texts it is true of.
	SilentOn func(text string) bool
	// CrashOn names a method on whose arrival the server dies with exit
	// status 3 (after writing "fake: crashing on METHOD" to its stderr).
	CrashOn string
	// HangOn names a method the server never answers ("initialize" keeps
	// it from ever starting).
	HangOn string
	// RawOn names a method answered by writing Raw to the stream as it is
	// (bytes that are no frame, a 2 GiB Content-Length, …); the server then
	// waits to be stopped.
	RawOn string
	Raw   string
	// Before runs in Main before the server serves (to start a child
	// process, say).
	Before func()
	// Watch registers workspace/didChangeWatchedFiles for these globs
	// after initialized.
	Watch []string
	// Capabilities are extra server capabilities (a JSON object merged over
	// the defaults).
	Capabilities string
	// ExitOnShutdown makes the server exit as soon as it has answered
	// shutdown, before exit arrives.
	ExitOnShutdown bool
	// IgnoreExit makes the server ignore the exit notification: it exits
	// (status 0) only when its input ends, as buf's does.
	IgnoreExit bool
	// Loading, after initialized, begins work-done progress with this
	// title and never ends it (a project load that never finishes).
	Loading string
	// Load, at initialized, begins and ends work-done progress with this
	// title before the server answers anything else: a project load that
	// finishes (pyright's first analysis).
	Load string
	// Reanalyze, on the first workspace/didChangeWatchedFiles, begins
	// work-done progress with this title and never ends it, as pyright
	// leaves "1 file to analyze" open after a file it tracks is deleted,
	// until the next change.
	Reanalyze string
	// Remember makes the server learn files only from
	// workspace/didChangeWatchedFiles, as servers that read the disk do:
	// handling an event, it reads each file the event names (a deleted
	// one is forgotten), and each hover answer ends with what it knows,
	// "name=first line" for each file in path order. The answer shows
	// which changes the server had taken in when it answered.
	Remember bool
	// Folders announces workspace folders with change notifications, and
	// each hover answer ends with the folders the server has, by name
	// ("folders: a,b").
	Folders bool
	// Actions offers two code actions for each "ERROR" in the range asked
	// about: "Fix ERROR" (a preferred quick fix whose edit turns that
	// ERROR into "fixed" and appends a line naming the fix to other.fk
	// beside the document), and "Fix ERROR by command" (the command
	// fake.fix, which sends the same edit back with workspace/applyEdit
	// when it runs); and, asked for source.fixAll, "Fix all ERRORs",
	// which turns every ERROR of the document into "FIXED" (and so
	// overlaps each "Fix ERROR").
	Actions bool
	// BadPublish publishes, for each version, a diagnostic without its
	// required message: a publish no client can read.
	BadPublish bool
	// Symbols answers textDocument/documentSymbol and workspace/symbol
	// (announced): a line "class NAME" declares a class, "def NAME" a
	// function, and an indented "def NAME" after a class its method; the
	// workspace's symbols are those of the .fk files of the root's
	// directory.
	Symbols bool
	// Ask, after initialized, shows this message (window/showMessage)
	// and asks it with the choices "Yes" and "No"
	// (window/showMessageRequest).
	Ask string
	// Name names the fake in what Items answers ("a": completion item
	// "a.item", …).
	Name string
	// Items answers the requests whose items come back to the server —
	// completion, code actions, inlay hints, code lenses, document links,
	// call and type hierarchy (all resolvable) — and references: each item
	// NAME's, its data {"by":NAME}, which each resolve (or hierarchy step)
	// must bring back unchanged or is refused. The code action comes
	// without its edit ("NAME: note"); its resolve inserts "NAME was here"
	// at the start of the document last asked about, with the version the
	// fake has of it. References are the document's first character and a
	// line of NAME's own (1 for "a", 2 for others).
	Items bool
	// Linked diagnoses a document against lib.fk in its directory (its
	// open text, else the disk's), as a compiler checks a caller against
	// its callee: each line "call NAME N" is an error unless lib.fk has
	// the line "def NAME N" ("NAME takes M arguments, not N", or
	// "undefined: NAME"); and each line holding "ERROR" is an error whose
	// message is that line's text from the word on (no line number in it,
	// as real servers' messages have none).
	Linked bool
	// Liar breaks the protocol once in each way lspkit conform checks: a
	// publish before the initialize answer; publishes with a diagnostic
	// missing its message and of severity 9, for a version ahead of the
	// client's, and at a character past its line's end; a request in the
	// wrong direction (textDocument/hover to the client); a
	// workspace/diagnostic/refresh the client did not offer; a dynamic
	// registration of textDocument/hover (not offered); $/progress on a
	// token nobody made, and a created token ended twice; documentSymbol
	// advertised but answered MethodNotFound (also when cancelled);
	// linkedEditingRange answered though not advertised; foldingRange
	// advertised and never answered; a request after the shutdown answer;
	// exit status 1 after shutdown and exit.
	Liar bool
}

// ErrorLines is the default Diagnose: an error for each line containing
// "ERROR", from that word to the end of the line, counted in UTF-16.
func ErrorLines(text string) []protocol.Diagnostic {
	out := []protocol.Diagnostic{}
	for i, line := range strings.Split(text, "\n") {
		col := strings.Index(line, "ERROR")
		if col < 0 {
			continue
		}
		start := utf16Len(line[:col])
		out = append(out, protocol.Diagnostic{
			Range:    protocol.Range{Start: protocol.Position{Line: uint32(i), Character: start}, End: protocol.Position{Line: uint32(i), Character: utf16Len(line)}},
			Severity: protocol.Ptr(protocol.DiagnosticSeverityError),
			Source:   protocol.Ptr("fake"),
			Message:  protocol.NewStringOrMarkupContentString(fmt.Sprintf("error on line %d", i+1)),
		})
	}
	return out
}

func utf16Len(s string) uint32 {
	n := uint32(0)
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}
