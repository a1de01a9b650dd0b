// Package api is lspkit's service contract in Go (docs/contract.md is its
// published text): the method names, the params and
// results of every method, and the error codes. The orchestrator's Go API,
// its JSON-RPC and MCP adapters and the Go client that spawns the daemon
// all speak these types, so the contract is written down once.
package api

import (
	"fmt"
	"maps"
	"slices"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/transport"
)

// The contract's methods, agent → daemon, and the daemon's notification.
const (
	MethodReady              = "lsp/ready"
	MethodCheckFile          = "lsp/checkFile"
	MethodCheck              = "lsp/check"
	MethodDiagnostics        = "lsp/diagnostics"
	MethodGetDiagnosticEpoch = "lsp/getDiagnosticEpoch"
	MethodDiagnosticsAfter   = "lsp/diagnosticsAfter"
	MethodReport             = "lsp/report"
	MethodStatus             = "lsp/status"
	MethodDefinition         = "lsp/definition"
	MethodTypeDefinition     = "lsp/typeDefinition"
	MethodImplementation     = "lsp/implementation"
	MethodCallHierarchy      = "lsp/callHierarchy"
	MethodRename             = "lsp/rename"
	MethodReferences         = "lsp/references"
	MethodHover              = "lsp/hover"
	MethodDocumentSymbols    = "lsp/documentSymbols"
	MethodWorkspaceSymbols   = "lsp/workspaceSymbols"
	MethodCodeActions        = "lsp/codeActions"
	MethodApplyCodeAction    = "lsp/applyCodeAction"
	MethodFormat             = "lsp/format"
	MethodFixAll             = "lsp/fixAll"
	MethodShutdown           = "lsp/shutdown"
	MethodDeclaration        = "lsp/declaration"
	MethodDocumentHighlights = "lsp/documentHighlights"
	MethodSignatureHelp      = "lsp/signatureHelp"
	MethodInlayHints         = "lsp/inlayHints"
	MethodTypeHierarchy      = "lsp/typeHierarchy"
	MethodCompletion         = "lsp/completion"
	MethodSymbolContext      = "lsp/symbolContext"
	MethodBatch              = "lsp/batch"
	MethodApplyEdits         = "lsp/applyEdits"
	MethodReplaceSymbolBody  = "lsp/replaceSymbolBody"
	MethodInsertBeforeSymbol = "lsp/insertBeforeSymbol"
	MethodInsertAfterSymbol  = "lsp/insertAfterSymbol"
	MethodSafeDelete         = "lsp/safeDelete"
)

// Error codes of the contract beyond JSON-RPC's (which transport defines).
// Every failure of the orchestrator's Go API is, or wraps, a
// *transport.Error with one of these codes or a JSON-RPC one, and both
// adapters answer with it unchanged.
const (
	// CodeOutsideRoot: a path outside the workspace root.
	CodeOutsideRoot = -32001
	// CodeNoServer: no language server can answer for the file (none for
	// its type, or none that offers the method, or none available).
	CodeNoServer = -32002
	// CodeNotFound: the file does not exist (or is not a regular file).
	CodeNotFound = -32003
	// CodeTimeout: a language server did not answer within the configured
	// time (navigationTimeout, requestTimeout).
	CodeTimeout = -32004
	// CodeUnresolved: a symbol given without a line (or not within 5
	// lines of its line) matches several places — data's "candidates"
	// lists them — or none — data's "nearest" lists the closest names.
	CodeUnresolved = -32005
)

// Errorf returns the contract's error with code and a formatted message.
func Errorf(code int64, format string, args ...any) *transport.Error {
	return transport.Errorf(code, format, args...)
}

// InvalidParams is the error for a parameter that is missing or out of
// range: a sentence naming the parameter as the contract names it.
func InvalidParams(format string, args ...any) *transport.Error {
	return transport.Errorf(transport.CodeInvalidParams, format, args...)
}

// NoServer is the error when no server can answer for a file.
func NoServer(format string, args ...any) *transport.Error {
	return Errorf(CodeNoServer, format, args...)
}

// NotFound is the error for a file that does not exist.
func NotFound(file string, err error) *transport.Error {
	return transport.WrapError(CodeNotFound, fmt.Sprintf("no such file: %s", file), err)
}

// Plural picks one for n == 1 and many otherwise, for answers' text.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// JoinNotes joins an answer's notes into one, "; " between them, leaving
// out empty ones and repeats of the note so far.
func JoinNotes(a string, more ...string) string {
	for _, b := range more {
		switch {
		case b == "" || b == a:
		case a == "":
			a = b
		default:
			a += "; " + b
		}
	}
	return a
}

// Severity names of the contract, in decreasing order.
var Severities = []string{"error", "warning", "info", "hint"}

// ValidSeverity reports whether s is one of Severities.
func ValidSeverity(s string) bool { return slices.Contains(Severities, s) }

// ReadyParams is lsp/ready's params.
type ReadyParams struct {
	Version string `json:"version"`
	PID     int    `json:"pid"`
	// Notes say how this client is served otherwise than it may expect:
	// a shared daemon whose servers' environment differs from the
	// client's.
	Notes []string `json:"notes,omitempty"`
}

// Diagnostic is the contract's diagnostic: 1-based lines, columns in code
// points of the line, the file relative to the root, '/'-separated.
type Diagnostic struct {
	File         string `json:"file"`
	Line         int    `json:"line"`
	Character    int    `json:"character"`
	EndLine      int    `json:"endLine"`
	EndCharacter int    `json:"endCharacter"`
	Severity     string `json:"severity"`
	Message      string `json:"message"`
	Code         any    `json:"code,omitzero"` // a string or an integer
	Source       string `json:"source,omitempty"`
	Server       string `json:"server"`
}

// MarshalJSONTo writes the diagnostic with "column" beside "character"
// (the same number), for hosts whose clients read that name (LLxprt
// Code's). It is the encoding of the daemon's JSON-RPC surface; Go
// programs read Character.
func (d Diagnostic) MarshalJSONTo(enc *jsontext.Encoder) error {
	return json.MarshalEncode(enc, diagnosticWire{
		File: d.File, Line: d.Line, Character: d.Character, Column: d.Character, EndLine: d.EndLine, EndCharacter: d.EndCharacter,
		Severity: d.Severity, Message: d.Message, Code: d.Code, Source: d.Source, Server: d.Server,
	})
}

// diagnosticWire is Diagnostic as JSON-RPC carries it.
type diagnosticWire struct {
	File         string `json:"file"`
	Line         int    `json:"line"`
	Character    int    `json:"character"`
	Column       int    `json:"column"`
	EndLine      int    `json:"endLine"`
	EndCharacter int    `json:"endCharacter"`
	Severity     string `json:"severity"`
	Message      string `json:"message"`
	Code         any    `json:"code,omitzero"`
	Source       string `json:"source,omitempty"`
	Server       string `json:"server"`
}

// FileDiagnostics are diagnostics by file (relative to the root). They
// encode as a JSON object with the files in ascending order.
type FileDiagnostics map[string][]Diagnostic

// MarshalJSONTo writes the object with sorted keys.
func (f FileDiagnostics) MarshalJSONTo(enc *jsontext.Encoder) error {
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(f)) {
		if err := enc.WriteToken(jsontext.String(k)); err != nil {
			return err
		}
		if err := json.MarshalEncode(enc, f[k]); err != nil {
			return err
		}
	}
	return enc.WriteToken(jsontext.EndObject)
}

// FeedbackMessageChars is how much of a message the text renderings for
// the model show (lsp/report's block, the MCP check's text): the JSON
// keeps the whole message.
const FeedbackMessageChars = 200

// FeedbackMessage is a message as text renderings show it: its first
// FeedbackMessageChars characters (code points), and "…" when it is
// longer.
func FeedbackMessage(m string) string {
	n := 0
	for i := range m {
		if n == FeedbackMessageChars {
			return m[:i] + "…"
		}
		n++
	}
	return m
}

// CheckParams is the params of lsp/checkFile, lsp/check and lsp/report's
// file part.
type CheckParams struct {
	FilePath  string  `json:"filePath"`
	Text      *string `json:"text,omitzero"`      // authoritative instead of the file on disk
	TimeoutMs int     `json:"timeoutMs,omitzero"` // per server; 0: the configured timeouts
	// Severities are the severities reported ("error", "warning", "info",
	// "hint"); empty: the configuration's includeSeverities. They widen as
	// well as narrow the configured default.
	Severities []string `json:"severities,omitzero"`
	// Delta leaves out the findings that the previous check or report of
	// the file showed (the same server, code and message, on the line any
	// edit since moved it to); Repeated counts them. A finding that went
	// away and came back is new again.
	Delta bool `json:"delta,omitzero"`
	// Impact also finds the other files the change may break (those
	// that depend on it, as each server knows them), brings them to the
	// servers and reports their findings (CheckResult.Impact).
	Impact bool `json:"impact,omitzero"`
	// Files is a what-if of several files: path → proposed text, checked
	// together with their impact, nothing written (FilePath, when also
	// given, is checked as one of them). A path that does not exist is a
	// new file.
	Files map[string]string `json:"files,omitzero"`
	// ImpactAfterChange finds the impact, as Impact does, when the file
	// changed since a server last had it (the MCP tool's default).
	ImpactAfterChange bool `json:"-"`
	// OnDisk are more files of a what-if, each as it is on disk, checked
	// together with Files and their impact.
	OnDisk []string `json:"-"`
	// ImpactMaxFiles bounds the files an impact checks; 0: the
	// configuration's impactMaxFiles.
	ImpactMaxFiles int `json:"-"`
	// NoImpact checks a what-if's files alone, without the files that
	// depend on them.
	NoImpact bool `json:"-"`
	// ImpactOnly, when not nil, keeps of the files that depend on the
	// change those it names (relative to the root): an impact's files
	// checked again, on the same servers, beside other texts.
	ImpactOnly []string `json:"-"`
}

// Impact is what a change does to other files: those with findings after
// it, how many were checked, and whether that is all of them (else why
// not).
type Impact struct {
	Files    []ImpactFile `json:"files"`
	Checked  int          `json:"checked"`
	Complete bool         `json:"complete"`
	Reason   string       `json:"reason,omitempty"`
	// Old counts the findings left out of Files because the files that
	// depend on the change had them before it too (a check of one file
	// whose earlier text lspkit knows: the text its servers had, or for
	// given text the disk's).
	Old int `json:"old,omitzero"`
	// BeforeUnknown says why Files may hold findings the change did not
	// bring: whose findings before the change could not be known.
	BeforeUnknown string `json:"beforeUnknown,omitempty"`
	// CheckedFiles are the files Checked counts, relative to the root.
	CheckedFiles []string `json:"-"`
}

// ImpactFile is one other file's findings after a change.
type ImpactFile struct {
	File        string       `json:"file"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// Verdict says how one server finished a check.
type Verdict string

// The verdicts of a check, per server.
const (
	VerdictSettled     Verdict = "settled"     // its diagnostics are final for the text
	VerdictPartial     Verdict = "partial"     // timed out with some diagnostics in hand
	VerdictTimedOut    Verdict = "timedOut"    // timed out with nothing for this version
	VerdictUnavailable Verdict = "unavailable" // its binary is missing and cannot be installed
	VerdictBroken      Verdict = "broken"      // it crashed past the restart policy or failed to start
)

// ServerResult is how one server finished a check.
type ServerResult struct {
	ID      string  `json:"id"`
	Verdict Verdict `json:"verdict"`
	MS      int64   `json:"ms"`
	Reason  string  `json:"reason,omitempty"`
	// Cold says, on the first check of a server started again, why it had
	// been stopped (unused, or for the daemon's budget): its time includes
	// its start and its project's load.
	Cold string `json:"cold,omitempty"`
}

// CheckResult is lsp/check's answer: whether the file was fully checked
// (and why not), the merged diagnostics, and how each server finished.
type CheckResult struct {
	Checked     bool           `json:"checked"`
	Reason      string         `json:"reason,omitempty"`
	Diagnostics []Diagnostic   `json:"diagnostics"`
	Servers     []ServerResult `json:"servers"`
	// Repeated counts the findings a delta check left out: the previous
	// check or report of the file showed them.
	Repeated int `json:"repeated,omitzero"`
	// Note says when the answer may not reflect every change on disk, and
	// why (file watching degraded, a burst of changes a server does not
	// watch).
	Note string `json:"note,omitempty"`
	// Skipped says, when Checked is false because no server is meant to
	// check the file at all, which of the Skipped… reasons it is; empty
	// when a server was meant to and could not (unavailable, broken, out
	// of time, the file unreadable).
	Skipped string `json:"skipped,omitempty"`
	// Impact is the change's effect on other files, when asked for.
	Impact *Impact `json:"impact,omitempty"`
}

// Why a check asked no server (CheckResult.Skipped): the file is none of
// lspkit's to check, as opposed to a check that failed.
const (
	SkippedOutsideRoot = "outside-root" // the file is outside the workspace root
	SkippedExcluded    = "excluded"     // the configuration's exclude matches it
	SkippedNoServer    = "no-server"    // no server handles its type
	SkippedDisabled    = "disabled"     // LSP is disabled by configuration
)

// DiagnosticsParams is lsp/diagnostics' params.
type DiagnosticsParams struct {
	// Sweep checks every source file of the root first (SweepResult).
	Sweep bool `json:"sweep,omitzero"`
	// Severities are the severities a sweep reports; empty: the
	// configuration's includeSeverities.
	Severities []string `json:"severities,omitzero"`
}

// SweepResult is a sweep's answer: the findings of every source file of
// the root, how many files there were and were checked, and whether that
// is all of them (else why not).
type SweepResult struct {
	Diagnostics FileDiagnostics `json:"diagnostics"`
	Files       int             `json:"files"`
	Checked     int             `json:"checked"`
	Complete    bool            `json:"complete"`
	Reason      string          `json:"reason,omitempty"`
}

// DiagnosticsAfterParams is lsp/diagnosticsAfter's params.
type DiagnosticsAfterParams struct {
	AfterEpoch uint64 `json:"afterEpoch"`
	WaitMs     *int   `json:"waitMs,omitzero"` // default 1000
}

// ReportParams is lsp/report's params.
type ReportParams struct {
	FilePath string  `json:"filePath"`
	Text     *string `json:"text,omitzero"`
	Mode     string  `json:"mode"` // "edit" or "write"
	// Delta reports only findings that the previous check or report of
	// each file did not show (the same server, code and message, on the
	// line any edit since moved it to).
	Delta bool `json:"delta,omitzero"`
}

// ReportResult is lsp/report's answer: the feedback block for the model and
// the diagnostics it was made from, by file.
type ReportResult struct {
	Text        string          `json:"text"`
	Diagnostics FileDiagnostics `json:"diagnostics"`
	// Repeated counts the findings a delta report left out, over all files.
	Repeated int `json:"repeated,omitzero"`
	// Checked and Reason are the reported file's verdict, as lsp/check's:
	// an empty text is no findings only when Checked.
	Checked bool   `json:"checked"`
	Reason  string `json:"reason,omitempty"`
	// Note is as lsp/check's.
	Note string `json:"note,omitempty"`
	// Impact is the check's impact (mode write): the files that depend
	// on the change, as lsp/check's.
	Impact *Impact `json:"impact,omitempty"`
}

// Server states, as lsp/status reports them.
const (
	StatusIdle        = "idle"
	StatusStarting    = "starting"
	StatusActive      = "active"
	StatusBroken      = "broken"
	StatusDisabled    = "disabled"
	StatusUnavailable = "unavailable"
)

// ServerStatus is one server's state for lsp/status.
type ServerStatus struct {
	ID       string `json:"id"`
	Language string `json:"language"`
	Status   string `json:"status"`
	Root     string `json:"root,omitempty"`
	// Roots are the workspace folders one process serves, Root first,
	// when it serves more than one.
	Roots     []string `json:"roots,omitempty"`
	ServerPID int      `json:"serverPid,omitzero"`
	Reason    string   `json:"reason,omitempty"`
	Restarts  int      `json:"restarts,omitzero"`
	// MemoryMB is the resident memory of the server and its helper
	// processes, in MiB (rounded up), where it can be measured (Linux).
	MemoryMB int `json:"memoryMB,omitzero"`
	// SharedWith is how many other worktrees the server's process serves
	// too: a shared daemon runs one process of a server that takes
	// workspace folders for all the worktrees of a repository, each a
	// folder of it. MemoryMB is then this worktree's share of it.
	SharedWith int `json:"sharedWith,omitzero"`
	// Watching says how the file watcher for the server's registered
	// globs is doing: how many directories it watches, or "degraded: …"
	// with why some of the tree is polled instead.
	Watching string `json:"watching,omitempty"`
	// Sidecar is how the server's sidecar command is doing, if it has one.
	Sidecar *SidecarStatus `json:"sidecar,omitzero"`
	// Notes, on the daemon's own entry (DaemonStatusID), say what it made
	// of the configuration a host gave it: each key it ignored, with why,
	// and server entries it read a certain way.
	Notes []string `json:"notes,omitempty"`
}

// MarshalJSONTo writes the status with "serverId" (= ID) and "state" (the
// status in the words LLxprt Code's status normalizer reads, see State)
// beside lspkit's own members. It is the encoding of the daemon's JSON-RPC
// surface; Go programs read ID and Status.
func (s ServerStatus) MarshalJSONTo(enc *jsontext.Encoder) error {
	type plain ServerStatus // without this method
	return json.MarshalEncode(enc, struct {
		plain
		ServerID string `json:"serverId"`
		State    string `json:"state"`
	}{plain(s), s.ID, State(s.Status)})
}

// State is a status in the vocabulary of LLxprt Code's status normalizer
// (ok, starting, broken, idle): active is ok; a disabled server, never
// started, is idle; one that cannot run (unavailable) is broken.
func State(status string) string {
	switch status {
	case StatusActive:
		return "ok"
	case StatusStarting:
		return "starting"
	case StatusBroken, StatusUnavailable:
		return "broken"
	}
	return "idle"
}

// DaemonStatusID is the id of the entry lsp/status adds for the daemon
// itself when its configuration needs saying (ServerStatus.Notes).
const DaemonStatusID = "lspkit"

// SidecarStatus is a sidecar's part of a server's status: its pid while it
// runs, its state (idle, running, restarting, broken, unavailable,
// stopped), its restarts and why it is not running.
type SidecarStatus struct {
	PID      int    `json:"pid,omitzero"`
	Status   string `json:"status"`
	Restarts int    `json:"restarts,omitzero"`
	Reason   string `json:"reason,omitempty"`
}

// PositionParams is a position as agents give it: the file, a 1-based line
// and a 1-based column in code points, or instead of the column a symbol
// name on that line (found within 5 lines of it when it is not on it); or
// a symbol alone, without a line — a name or a dotted path of containers
// ("Router.Handle", "click.core.Command.invoke") looked up in the file's
// symbols, or without a file in the workspace's, narrowed by Kind.
type PositionParams struct {
	File      string `json:"file,omitzero"`
	Line      int    `json:"line,omitzero"`
	Character int    `json:"character,omitzero"`
	Symbol    string `json:"symbol,omitzero"`
	// Occurrence picks among several occurrences of Symbol on the line
	// (1-based); without it the first is used and the answer says so.
	Occurrence int `json:"occurrence,omitzero"`
	// Kind narrows a symbol looked up without a line to symbols of that
	// kind ("function", "method", "class", "struct", "interface", …).
	Kind string `json:"kind,omitzero"`
}

// Location is a place in a file: 1-based lines and code-point columns.
type Location struct {
	File         string `json:"file"`
	Line         int    `json:"line"`
	Character    int    `json:"character"`
	EndLine      int    `json:"endLine"`
	EndCharacter int    `json:"endCharacter"`
	// Source is the text of the location's first line, trimmed, at most
	// 200 characters: what is there, without another call.
	Source string `json:"source"`
}

// LocationsResult is the answer of the definition-like methods.
type LocationsResult struct {
	Locations []Location `json:"locations"`
	// Note says what the position was taken to mean when the request left
	// a choice ("`f` appears 3 times on line 12; used the first; pass
	// occurrence").
	Note string `json:"note,omitempty"`
}

// HoverResult is lsp/hover's answer: markdown or text, or null.
type HoverResult struct {
	Content *string `json:"content"`
	Note    string  `json:"note,omitempty"` // as LocationsResult's
}

// FileParams names a file.
type FileParams struct {
	File string `json:"file"`
}

// Range is a symbol's range: 1-based lines and code-point columns.
type Range struct {
	StartLine int `json:"startLine"`
	StartChar int `json:"startChar"`
	EndLine   int `json:"endLine"`
	EndChar   int `json:"endChar"`
}

// Symbol is a document symbol.
type Symbol struct {
	Name     string   `json:"name"`
	Kind     string   `json:"kind"`
	Detail   string   `json:"detail,omitempty"`
	Range    Range    `json:"range"`
	Children []Symbol `json:"children,omitempty"`
}

// SymbolsResult is lsp/documentSymbols' answer.
type SymbolsResult struct {
	Symbols []Symbol `json:"symbols"`
}

// QueryParams is lsp/workspaceSymbols' params.
type QueryParams struct {
	Query string `json:"query"`
}

// WorkspaceSymbol is a symbol found across the workspace.
type WorkspaceSymbol struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Container is the server's name for what holds it (a type, a
	// module, a package), when it gives one.
	Container string `json:"container,omitempty"`
	File      string `json:"file"`
	Range     Range  `json:"range"`
}

// WorkspaceSymbolsResult is lsp/workspaceSymbols' answer.
type WorkspaceSymbolsResult struct {
	Symbols []WorkspaceSymbol `json:"symbols"`
	// Note says which servers were still loading their project when
	// they answered.
	Note string `json:"note,omitempty"`
}

// Call-hierarchy directions.
const (
	DirectionIncoming = "incoming" // who calls the function at the position
	DirectionOutgoing = "outgoing" // what it calls
)

// CallHierarchyParams is lsp/callHierarchy's params: a position and a
// direction.
type CallHierarchyParams struct {
	PositionParams
	Direction string `json:"direction"` // DirectionIncoming or DirectionOutgoing
}

// Call is one call of a call hierarchy. Incoming: the caller's name and
// kind, and the place of the call in it (one entry per call site).
// Outgoing: the callee's name and kind, and where it is declared.
type Call struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Detail    string `json:"detail,omitempty"`
	File      string `json:"file"`
	Line      int    `json:"line"`
	Character int    `json:"character"`
	Source    string `json:"source"` // that line's text, trimmed, ≤ 200 characters
}

// CallHierarchyResult is lsp/callHierarchy's answer.
type CallHierarchyResult struct {
	// Function is the function or method at the position, as the server
	// names it ("" when there is none).
	Function string `json:"function,omitempty"`
	Calls    []Call `json:"calls"`
	Note     string `json:"note,omitempty"` // as LocationsResult's
}

// RenameParams is lsp/rename's params.
type RenameParams struct {
	PositionParams
	NewName string `json:"newName"`
	// Apply writes the edit: each file atomically, then the servers are
	// re-synced and the touched files checked. Without it nothing is
	// written.
	Apply bool `json:"apply,omitzero"`
}

// When an lsp/applyEdits writes (ApplyEditsParams.When).
const (
	// WhenNoNewErrors writes only if no error appears that was not there
	// before, in the edited files and in the files they affect.
	WhenNoNewErrors = "noNewErrors"
	// WhenAlways writes, and reports the same delta.
	WhenAlways = "always"
)

// ApplyEditsParams is lsp/applyEdits' request: edits of one or more files,
// checked as one what-if with their impact, then written — every file or
// none.
type ApplyEditsParams struct {
	Edits []FileEdit `json:"edits,omitzero"`
	// Preview is instead of Edits: the id of an edit shown and not
	// written (RenameResult.Preview of a rename, code action, fix-all or
	// formatting), each file's new text based on the text it was made
	// from.
	Preview string `json:"preview,omitzero"`
	// When is WhenNoNewErrors (the default) or WhenAlways.
	When string `json:"when,omitzero"`
}

// FileEdit is an edit of one file: its whole new text, or changes by
// range (1-based lines and characters, the end the position after the
// last character replaced), made to the file as it is on disk.
type FileEdit struct {
	File    string       `json:"file"`
	Text    *string      `json:"text,omitzero"`
	Changes []TextChange `json:"changes,omitzero"`
	// Base is the file the edit was computed from, "sha256:HEX" of its
	// bytes (an earlier answer's hashes): a file on disk that is no longer
	// it refuses the whole set, nothing written.
	Base string `json:"base,omitzero"`
}

// TextChange replaces a range of a file with NewText (an insert when the
// range is empty).
type TextChange struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// ApplyEditsResult is lsp/applyEdits' answer.
type ApplyEditsResult struct {
	// Applied says the files were written.
	Applied bool `json:"applied"`
	// Files are the files the edits change (written when Applied).
	Files []string `json:"files"`
	// Introduced are the errors that were not there before the edits,
	// in the edited files and the files they affect; Fixed those that
	// were and are gone.
	Introduced []Diagnostic `json:"introduced"`
	Fixed      []Diagnostic `json:"fixed"`
	// Hashes are each file's base after the answer ("sha256:HEX"), for
	// the next edit's Base: the new text when written, else the disk's.
	Hashes map[string]string `json:"hashes,omitzero"`
	// Reason says why nothing was written, or what could not be checked.
	Reason string `json:"reason,omitempty"`
	// Impact says how many other files were checked and whether that is
	// all of those the edits may affect.
	Impact *Impact `json:"impact,omitempty"`
	Note   string  `json:"note,omitempty"`
}

// SymbolEditParams addresses a symbol as every position is addressed (a
// name or dotted path; file and line, with or without the name) and says
// what to do to it; each edit goes through lsp/applyEdits.
type SymbolEditParams struct {
	PositionParams
	// Body is lsp/replaceSymbolBody's: the body as it stands in the
	// source, braces included where the language has them (Go,
	// TypeScript, C: "{ … }"; Python: the indented block).
	Body string `json:"body,omitzero"`
	// Text is what lsp/insertBeforeSymbol and lsp/insertAfterSymbol put
	// on the lines before or after the symbol.
	Text string `json:"text,omitzero"`
	// Force has lsp/safeDelete delete a symbol still referenced (written
	// whatever it breaks, which the answer lists).
	Force bool `json:"force,omitzero"`
	// When is as lsp/applyEdits' (WhenNoNewErrors by default).
	When string `json:"when,omitzero"`
}

// SymbolEditResult is a symbol edit's answer: lsp/applyEdits', the symbol
// it found, and for lsp/safeDelete the references that remain.
type SymbolEditResult struct {
	ApplyEditsResult
	// Symbol is the symbol edited: its kind, name and lines.
	Symbol     string     `json:"symbol"`
	References []Location `json:"references,omitzero"`
}

// RenameResult is lsp/rename's answer: the server's edit as a unified
// diff with its counts, whether it was written, and when it was, the
// diagnostics of the files it touched.
type RenameResult struct {
	Diff        string          `json:"diff"`
	Files       int             `json:"files"`
	Edits       int             `json:"edits"`
	Applied     bool            `json:"applied"`
	Diagnostics FileDiagnostics `json:"diagnostics,omitzero"`
	// Preview, when the edit was not written, is its id for
	// lsp/applyEdits' Preview: the same files written only if nothing new
	// breaks and none changed since.
	Preview string `json:"preview,omitempty"`
	Note    string `json:"note,omitempty"`
}

// CodeActionsParams is lsp/codeActions' params: where to look (a position,
// or with EndLine a range; with Line alone the whole line), which kinds
// (prefixes such as "quickfix", "source.organizeImports"; all when
// empty), or the actions for one finding as lspkit returned it.
type CodeActionsParams struct {
	PositionParams
	EndLine      int         `json:"endLine,omitzero"`
	EndCharacter int         `json:"endCharacter,omitzero"`
	Kinds        []string    `json:"kinds,omitempty"`
	Diagnostic   *Diagnostic `json:"diagnostic,omitempty"`
}

// CodeAction is one action a server offers: Apply it by ID with
// lsp/applyCodeAction.
type CodeAction struct {
	ID          string       `json:"id"`
	Title       string       `json:"title"`
	Kind        string       `json:"kind,omitempty"`
	Server      string       `json:"server"`
	Preferred   bool         `json:"preferred,omitzero"`
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
	// Disabled says why the server offers the action but not here.
	Disabled string `json:"disabled,omitempty"`
	// Command names the server command the action runs (its edits come
	// only when it runs: apply runs it; a preview cannot).
	Command string `json:"command,omitempty"`
}

// CodeActionsResult is lsp/codeActions' result.
type CodeActionsResult struct {
	Actions []CodeAction `json:"actions"`
	Note    string       `json:"note,omitempty"`
}

// ApplyCodeActionParams is lsp/applyCodeAction's params: nothing is
// written unless Apply.
type ApplyCodeActionParams struct {
	ID    string `json:"id"`
	Apply bool   `json:"apply,omitzero"`
}

// FormatParams is lsp/format's params: the whole file, or lines StartLine
// to EndLine (1-based, inclusive); nothing is written unless Apply.
type FormatParams struct {
	File      string `json:"file"`
	StartLine int    `json:"startLine,omitzero"`
	EndLine   int    `json:"endLine,omitzero"`
	Apply     bool   `json:"apply,omitzero"`
}

// FixAllParams is lsp/fixAll's params: nothing is written unless Apply.
type FixAllParams struct {
	File  string `json:"file"`
	Apply bool   `json:"apply,omitzero"`
}

// FixAllResult is lsp/fixAll's result: lsp/rename's, and the file's
// findings that remain (before the apply, all of them). Checked is false
// when the file could not be fully checked (the note says why): then
// Remaining may not be all of them.
type FixAllResult struct {
	RenameResult
	Remaining []Diagnostic `json:"remaining"`
	Checked   bool         `json:"checked"`
}
