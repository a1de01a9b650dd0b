package features

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/sourcegraph/conc"

	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/textedit"
)

// FixAll previews (or, with p.Apply, applies) every fix the servers of a
// file offer for it at once: their source.fixAll and
// source.organizeImports actions and the preferred quick fix of each of
// their findings, combined in one diff. An action whose edits overlap
// another's is left out and named; actions that only run a command are
// left out and named (they cannot be combined). Applied, the files are
// written atomically and checked; Remaining lists the file's findings
// left after.
func (f *Features) FixAll(ctx context.Context, p api.FixAllParams) (api.FixAllResult, error) {
	out := api.FixAllResult{Remaining: []api.Diagnostic{}}
	first, err := f.core.Check(ctx, api.CheckParams{FilePath: p.File})
	if err != nil {
		return out, err
	}
	if !first.Checked {
		return out, api.InvalidParams("%s was not checked: %s", p.File, first.Reason)
	}
	ops, err := f.openServers(ctx, p.File, protocol.CodeActionRequest.Method(), true)
	if err != nil {
		return out, err
	}
	defer func() {
		for _, op := range ops {
			op.Release()
		}
	}()
	files := map[protocol.DocumentURI]*pendingFile{}
	var order []protocol.DocumentURI
	var notes []string
	taken := 0
	// Every server's candidates at once (the answer costs the slowest),
	// then combined in a fixed order.
	candidates := make([][]protocol.CodeAction, len(ops))
	errs := make([]error, len(ops))
	var wg conc.WaitGroup
	for i, op := range ops {
		wg.Go(func() { candidates[i], errs[i] = f.fixCandidates(ctx, op) })
	}
	if panicked := wg.WaitAndRecover(); panicked != nil {
		return out, fmt.Errorf("fix-all: internal error: %v", panicked.Value)
	}
	if err := errors.Join(errs...); err != nil {
		return out, err
	}
	for i, op := range ops {
		c := op.Client
		notes = append(notes, op.Note) // a server that could not answer, a project still loading
		for _, a := range candidates[i] {
			if a.Disabled != nil {
				continue
			}
			if a.Edit == nil && a.Command == nil && c.ResolvesCodeActions() {
				if a, err = c.ResolveCodeAction(ctx, a); err != nil {
					return out, err
				}
			}
			if a.Edit == nil {
				if a.Command != nil {
					notes = append(notes, fmt.Sprintf("%s's %q runs a command and cannot be combined: apply it alone (lsp/codeActions)", c.Name(), a.Title))
				}
				continue
			}
			aorder, byURI, err := f.editsOf(c, *a.Edit, "the fix")
			if err != nil {
				notes = append(notes, fmt.Sprintf("%s's %q: %v", c.Name(), a.Title, err))
				continue
			}
			// All of the action's edits, or none: each file's edits with
			// those taken so far must not overlap.
			next := map[protocol.DocumentURI]*pendingFile{}
			conflict := ""
			for _, uri := range aorder {
				f, err := f.byteEdits(c, uri, byURI[uri], "the fix")
				if err != nil {
					conflict = err.Error()
					break
				}
				merged := f
				if have, ok := files[uri]; ok {
					merged = *have
					for _, e := range f.edits {
						if !slices.Contains(merged.edits, e) { // the same edit from two actions is one
							merged.edits = append(merged.edits, e)
						}
					}
				}
				if _, err := textedit.Apply(merged.old, merged.edits); err != nil {
					conflict = fmt.Sprintf("its edits of %s overlap those of a fix taken before", merged.rel)
					break
				}
				next[uri] = &merged
			}
			if conflict != "" {
				notes = append(notes, fmt.Sprintf("%s's %q left out: %s", c.Name(), a.Title, conflict))
				continue
			}
			for _, uri := range aorder {
				if _, ok := files[uri]; !ok {
					order = append(order, uri)
				}
				files[uri] = next[uri]
			}
			taken++
		}
	}
	var planned []fileEdit
	for _, uri := range order {
		f := files[uri]
		text, err := textedit.Apply(f.old, f.edits)
		if err != nil {
			return out, fmt.Errorf("fix-all: %s: %w", f.rel, err)
		}
		if text != f.old {
			planned = append(planned, fileEdit{path: f.path, rel: f.rel, old: f.old, new: text, edits: len(f.edits)})
		}
	}
	out.Diff, out.Files, out.Edits = diffOf(planned)
	out.Note = api.JoinNotes("", notes...)
	if len(planned) == 0 {
		out.Note = api.JoinNotes(out.Note, "no server offers a fix that can be applied here")
		out.Remaining, out.Checked = first.Diagnostics, true
		return out, nil
	}
	word := "fixes"
	if taken == 1 {
		word = "fix"
	}
	out.Note = api.JoinNotes(out.Note, fmt.Sprintf("%d %s combined", taken, word))
	if !p.Apply {
		out.Remaining, out.Checked = first.Diagnostics, true // until applied
		out.Preview = f.previews.put("the fixes", planned)
		return out, nil
	}
	for _, op := range ops {
		op.Release() // the checks after the writes take holds of their own
	}
	if err := f.write(planned, "the fixes"); err != nil {
		return out, err
	}
	out.Applied = true
	out.Diagnostics, out.Note = f.checkTouched(ctx, planned, out.Note)
	after, err := f.core.Check(ctx, api.CheckParams{FilePath: p.File})
	switch {
	case err != nil:
		out.Note = api.JoinNotes(out.Note, fmt.Sprintf("the file could not be checked after the fixes: %v", err))
	case !after.Checked:
		out.Remaining = after.Diagnostics
		out.Note = api.JoinNotes(out.Note, "the file was not fully checked after the fixes: "+after.Reason)
	default:
		out.Remaining, out.Checked = after.Diagnostics, true
	}
	return out, nil
}

// fixRequests bounds the code action requests fix-all has in flight to
// one server.
const fixRequests = 8

// fixCandidates asks op's server for the file's source.fixAll and
// source.organizeImports actions and, for each of its findings, the
// preferred quick fix: the requests at once (the server answers them in
// its own order), the candidates in a fixed order — source actions, then
// the findings' fixes in the findings' order.
func (f *Features) fixCandidates(ctx context.Context, op Held) ([]protocol.CodeAction, error) {
	c := op.Client
	diags := c.Diagnostics(op.URI)
	found := make([][]protocol.CodeAction, 1+len(diags))
	errs := make([]error, 1+len(diags))
	slots := make(chan struct{}, fixRequests)
	var wg conc.WaitGroup
	wg.Go(func() {
		whole := protocol.Range{End: lineEnd(op, len(op.Lines))}
		source, err := c.CodeActions(ctx, op.URI, whole, diags, []protocol.CodeActionKind{protocol.CodeActionKindSourceFixAll, protocol.CodeActionKindSourceOrganizeImports})
		for _, a := range source {
			if a.Kind != nil && (kindWithin(*a.Kind, protocol.CodeActionKindSourceFixAll) || kindWithin(*a.Kind, protocol.CodeActionKindSourceOrganizeImports)) {
				found[0] = append(found[0], a)
			}
		}
		errs[0] = err
	})
	for i, d := range diags {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			fixes, err := c.CodeActions(ctx, op.URI, d.Range, []protocol.Diagnostic{d}, []protocol.CodeActionKind{protocol.CodeActionKindQuickFix})
			for _, a := range fixes {
				if a.IsPreferred != nil && *a.IsPreferred {
					found[1+i] = []protocol.CodeAction{a}
					break
				}
			}
			errs[1+i] = err
		})
	}
	if panicked := wg.WaitAndRecover(); panicked != nil {
		return nil, fmt.Errorf("%s: code actions: internal error: %v", c.Name(), panicked.Value)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return slices.Concat(found...), nil
}
