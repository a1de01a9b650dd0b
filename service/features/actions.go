package features

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/sourcegraph/conc"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/orchestrator"
	"github.com/lspkit/lspkit/service/textedit"
)

// maxStoredActions bounds the code actions kept for lsp/applyCodeAction;
// the oldest go first.
const maxStoredActions = 2000

// storedAction is a code action as listed, for lsp/applyCodeAction.
type storedAction struct {
	c       *client.Client
	action  protocol.CodeAction
	uri     protocol.DocumentURI
	version int32 // the document's version when listed
	// bases are the digests of the texts the action's edit was made for,
	// by document (the open document, else the file on disk), when the
	// listed action carries its edit: a change to any of them since makes
	// the action stale.
	bases map[protocol.DocumentURI][sha256.Size]byte
}

// actionStore keeps listed code actions by id.
type actionStore struct {
	mu    sync.Mutex
	next  uint64
	byID  map[string]*storedAction
	order []string
}

func (a *actionStore) put(x *storedAction) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.byID == nil {
		a.byID = map[string]*storedAction{}
	}
	a.next++
	id := "a" + strconv.FormatUint(a.next, 10)
	a.byID[id] = x
	a.order = append(a.order, id)
	if len(a.order) > maxStoredActions {
		delete(a.byID, a.order[0])
		a.order = a.order[1:]
	}
	return id
}

func (a *actionStore) get(id string) (*storedAction, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	x, ok := a.byID[id]
	return x, ok
}

// CodeActions lists the code actions every server of the file offers at a
// position (a zero-width range), over a range (EndLine), or over a whole
// line (Line alone), of the kinds asked for, or those for one finding
// (Diagnostic, as lspkit returned it). Each has an id for
// ApplyCodeAction.
func (f *Features) CodeActions(ctx context.Context, p api.CodeActionsParams) (api.CodeActionsResult, error) {
	return bounded(f, ctx, api.MethodCodeActions, func(ctx context.Context) (api.CodeActionsResult, error) { return f.codeActions(ctx, p) })
}

// codeActions is CodeActions without its bound.
func (f *Features) codeActions(ctx context.Context, p api.CodeActionsParams) (api.CodeActionsResult, error) {
	out := api.CodeActionsResult{Actions: []api.CodeAction{}}
	if p.Diagnostic == nil {
		pp, note, err := f.address(ctx, p.PositionParams)
		if err != nil {
			return out, err
		}
		p.PositionParams, out.Note = pp, note
	}
	if p.Diagnostic != nil {
		if p.File == "" {
			p.File = p.Diagnostic.File
		}
		if p.Line == 0 {
			p.Line, p.Character, p.EndLine, p.EndCharacter = p.Diagnostic.Line, p.Diagnostic.Character, p.Diagnostic.EndLine, p.Diagnostic.EndCharacter
		}
	}
	if p.Line < 1 {
		return out, api.InvalidParams("line must be ≥ 1")
	}
	if p.EndLine != 0 && p.EndLine < p.Line {
		return out, api.InvalidParams("endLine %d is before line %d", p.EndLine, p.Line)
	}
	ops, err := f.openServers(ctx, p.File, protocol.CodeActionRequest.Method(), true)
	if err != nil {
		return out, err
	}
	// Every server at once: the answer costs the slowest.
	answers := make([][]api.CodeAction, len(ops))
	notes := make([]string, len(ops))
	errs := make([]error, len(ops))
	var wg conc.WaitGroup
	for i, op := range ops {
		wg.Go(func() {
			defer op.Release()
			answers[i], notes[i], errs[i] = f.actionsOn(ctx, op, p)
		})
	}
	if panicked := wg.WaitAndRecover(); panicked != nil {
		return out, fmt.Errorf("code actions: internal error: %v", panicked.Value)
	}
	if err := errors.Join(errs...); err != nil {
		return out, err
	}
	disabled := 0
	for _, actions := range answers {
		for _, a := range actions {
			// As an editor's light bulb does, the actions a server offers
			// but not here are shown only when asked for by kind.
			if a.Disabled != "" && len(p.Kinds) == 0 {
				disabled++
				continue
			}
			out.Actions = append(out.Actions, a)
		}
	}
	out.Note = api.JoinNotes(out.Note, notes...)
	if len(out.Actions) == 0 {
		out.Note = api.JoinNotes(out.Note, "no server offers an action there")
	}
	if disabled > 0 {
		out.Note = api.JoinNotes(out.Note, fmt.Sprintf("%d more offered but not applicable here are left out (ask for their kinds to see them and why)", disabled))
	}
	return out, nil
}

// actionsOn lists one server's actions (see CodeActions).
func (f *Features) actionsOn(ctx context.Context, op Held, p api.CodeActionsParams) ([]api.CodeAction, string, error) {
	note := op.Note
	var rng protocol.Range
	switch {
	case p.Character == 0 && p.Symbol == "":
		if _, _, err := position(op, api.PositionParams{File: p.File, Line: p.Line, Character: 1}); err != nil {
			return nil, "", err
		}
		rng.Start = protocol.Position{Line: uint32(p.Line - 1)}
		rng.End = lineEnd(op, p.Line)
	default:
		start, n, err := position(op, p.PositionParams)
		if err != nil {
			return nil, "", err
		}
		note = n
		rng = protocol.Range{Start: start, End: start}
	}
	if p.EndLine > 0 {
		rng.End = lineEnd(op, p.EndLine)
		if p.EndCharacter > 0 {
			end, _, err := position(op, api.PositionParams{File: p.File, Line: p.EndLine, Character: p.EndCharacter})
			if err != nil {
				return nil, "", err
			}
			rng.End = end
		}
	}
	// The findings there (the server's own, with their data), or the one
	// asked about.
	server := op.Client.Name()
	var diags []protocol.Diagnostic
	for _, d := range op.Client.Diagnostics(op.URI) {
		if p.Diagnostic != nil {
			conv := f.core.Findings(server, op.Client, op.URI, []protocol.Diagnostic{d})
			if len(conv) == 1 && sameFinding(conv[0], *p.Diagnostic) {
				diags = append(diags, d)
			}
			continue
		}
		if overlaps(d.Range, rng) {
			diags = append(diags, d)
		}
	}
	if p.Diagnostic != nil {
		if p.Diagnostic.Server != "" && p.Diagnostic.Server != server {
			return nil, note, nil
		}
		if len(diags) == 0 {
			return nil, api.JoinNotes(note, fmt.Sprintf("%s has no such finding now (the file may have changed since): check the file again", server)), nil
		}
		rng = diags[0].Range
	}
	var only []protocol.CodeActionKind
	for _, k := range p.Kinds {
		only = append(only, protocol.CodeActionKind(k))
	}
	actions, err := op.Client.CodeActions(ctx, op.URI, rng, diags, only)
	if err != nil {
		return nil, note, err
	}
	_, version, _ := op.Client.DocumentVersion(op.URI)
	var out []api.CodeAction
	for _, a := range actions {
		if len(only) > 0 && a.Kind != nil && !slices.ContainsFunc(only, func(k protocol.CodeActionKind) bool { return kindWithin(*a.Kind, k) }) {
			continue // a server that ignores only
		}
		if p.Diagnostic != nil && len(a.Diagnostics) > 0 && !slices.ContainsFunc(a.Diagnostics, func(d protocol.Diagnostic) bool { return d.Range == diags[0].Range }) {
			continue
		}
		item := api.CodeAction{Title: a.Title, Server: server, Preferred: a.IsPreferred != nil && *a.IsPreferred}
		if a.Kind != nil {
			item.Kind = string(*a.Kind)
		}
		if a.Disabled != nil {
			item.Disabled = a.Disabled.Reason
		}
		if a.Command != nil && a.Edit == nil {
			item.Command = a.Command.Command
		}
		item.Diagnostics = f.core.Findings(server, op.Client, op.URI, a.Diagnostics)
		stored := &storedAction{c: op.Client, action: a, uri: op.URI, version: version}
		if a.Edit != nil {
			stored.bases = f.editBases(op.Client, *a.Edit)
		}
		item.ID = f.actions.put(stored)
		out = append(out, item)
	}
	return out, note, nil
}

// editBases digests the texts a workspace edit was made for (see
// storedAction.bases); a file it cannot read has no digest, and the apply
// then says why.
func (f *Features) editBases(c *client.Client, edit protocol.WorkspaceEdit) map[protocol.DocumentURI][sha256.Size]byte {
	order, _, err := f.editsOf(c, edit, "the action")
	if err != nil {
		return nil
	}
	bases := make(map[protocol.DocumentURI][sha256.Size]byte, len(order))
	for _, uri := range order {
		if text, err := f.baseText(c, uri, "the action"); err == nil {
			bases[uri] = sha256.Sum256([]byte(text))
		}
	}
	return bases
}

// staleBase names a document of the action's edit whose text changed
// since the action was listed, or is "".
func (f *Features) staleBase(x *storedAction) string {
	for uri, was := range x.bases {
		text, err := f.baseText(x.c, uri, "the action")
		if err != nil || sha256.Sum256([]byte(text)) != was {
			path, _ := uri.Path()
			return f.core.Rel(path)
		}
	}
	return ""
}

// lineEnd is the position after the last character of line (1-based).
func lineEnd(op Held, line int) protocol.Position {
	text := ""
	if line-1 < len(op.Lines) {
		text = op.Lines[line-1]
	}
	return protocol.Position{Line: uint32(line - 1), Character: op.Client.Mapper().Column(text, utf8.RuneCountInString(text))}
}

// overlaps reports whether a and b share a position (touching counts).
func overlaps(a, b protocol.Range) bool {
	before := func(x, y protocol.Position) bool {
		return x.Line < y.Line || x.Line == y.Line && x.Character < y.Character
	}
	return !before(a.End, b.Start) && !before(b.End, a.Start)
}

// sameFinding reports whether two findings are one: file, range and
// message.
func sameFinding(a, b api.Diagnostic) bool {
	return a.File == b.File && a.Line == b.Line && a.Character == b.Character && a.EndLine == b.EndLine && a.EndCharacter == b.EndCharacter && a.Message == b.Message
}

// kindWithin reports whether kind is k or one of its sub-kinds
// ("source.organizeImports" within "source").
func kindWithin(kind, k protocol.CodeActionKind) bool {
	return kind == k || strings.HasPrefix(string(kind), string(k)+".")
}

// ApplyCodeAction previews (or, with p.Apply, applies) a listed code
// action: the unified diff of every file it touches; applied, each file is
// written atomically, the servers re-synced and the touched files checked.
// An action from before a change to its file is refused as stale. An
// action that runs a server command is run only when applied, its edits
// (sent back with workspace/applyEdit) collected into the same apply.
func (f *Features) ApplyCodeAction(ctx context.Context, p api.ApplyCodeActionParams) (api.RenameResult, error) {
	var out api.RenameResult
	x, ok := f.actions.get(p.ID)
	if !ok {
		return out, api.InvalidParams("no code action %q: list the actions (lsp/codeActions) and use an id from the answer", p.ID)
	}
	out.Note = f.core.Barrier(ctx)
	c := x.c
	h, err := f.core.HoldAgain(ctx, c)
	if errors.Is(err, orchestrator.ErrRestarted) {
		return out, api.InvalidParams("code action %s is stale: %s has restarted since it was listed; list the actions again", p.ID, c.Name())
	}
	if err != nil {
		return out, err
	}
	held := h.Release
	defer held()
	path, _ := x.uri.Path()
	if _, now, open := c.DocumentVersion(x.uri); !open || now != x.version {
		return out, api.InvalidParams("code action %s is stale: %s changed since it was listed; list the actions again", p.ID, f.core.Rel(path))
	}
	if changed := f.staleBase(x); changed != "" {
		return out, api.InvalidParams("code action %s is stale: %s, which it edits, changed since it was listed; list the actions again", p.ID, changed)
	}
	a := x.action
	if a.Disabled != nil {
		return out, api.InvalidParams("%s offers %q but not here: %s", c.Name(), a.Title, a.Disabled.Reason)
	}
	if a.Edit == nil && a.Command == nil && c.ResolvesCodeActions() {
		if a, err = c.ResolveCodeAction(ctx, a); err != nil {
			return out, err
		}
	}
	var files []fileEdit
	if a.Edit != nil {
		if files, err = f.planEdit(c, *a.Edit, "the action"); err != nil {
			return out, err
		}
	}
	command := a.Command != nil && (a.Edit == nil || a.Command.Command != "")
	if !p.Apply {
		out.Diff, out.Files, out.Edits = diffOf(files)
		if command {
			out.Note = api.JoinNotes(out.Note, fmt.Sprintf("the action runs %s's command %s, whose edits come only when it runs: apply it to run it (nothing was run)", c.Name(), a.Command.Command))
		} else if len(files) == 0 {
			out.Note = api.JoinNotes(out.Note, "the action changes nothing")
		} else {
			out.Preview = f.previews.put("the action", files)
		}
		return out, nil
	}
	held() // the checks after the writes take holds of their own
	if len(files) > 0 {
		if err := f.write(files, "the action"); err != nil {
			return out, err
		}
		out.Applied = true
		f.core.Refresh(ctx)
	}
	if command {
		var collected []protocol.WorkspaceEdit
		if _, err := c.ExecuteCommand(ctx, *a.Command, func(e protocol.WorkspaceEdit) { collected = append(collected, e) }); err != nil {
			return out, err
		}
		for _, e := range collected {
			more, err := f.planEdit(c, e, "the action's command")
			if err != nil {
				return out, err
			}
			if err := f.write(more, "the action's command"); err != nil {
				return out, err
			}
			files = append(files, more...)
			out.Applied = true
			f.core.Refresh(ctx)
		}
	}
	out.Diff, out.Files, out.Edits = diffOf(files)
	if len(files) > 0 {
		out.Diagnostics, out.Note = f.checkTouched(ctx, files, out.Note)
	} else {
		out.Note = api.JoinNotes(out.Note, "the action changed no file")
	}
	return out, nil
}

// diffOf is the unified diff of files, with the counts.
func diffOf(files []fileEdit) (string, int, int) {
	var b strings.Builder
	edits := 0
	for _, f := range files {
		edits += f.edits
		b.WriteString(textedit.Unified("a/"+f.rel, "b/"+f.rel, f.old, f.new))
	}
	return b.String(), len(files), edits
}
