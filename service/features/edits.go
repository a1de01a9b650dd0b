package features

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sourcegraph/conc"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/findings"
	"github.com/lspkit/lspkit/service/textedit"
)

// ApplyEdits checks a set of edits as one what-if with its impact and
// writes them — every file or none — when p.When allows: by default only
// if no error appears that was not there before, in the edited files and
// in the files they affect. A file whose Base is not the file on disk
// refuses the whole set, as does a file another program writes between
// the check and the write: nothing is written then.
func (f *Features) ApplyEdits(ctx context.Context, p api.ApplyEditsParams) (api.ApplyEditsResult, error) {
	out := api.ApplyEditsResult{Files: []string{}, Introduced: []api.Diagnostic{}, Fixed: []api.Diagnostic{}}
	when := p.When
	switch when {
	case "":
		when = api.WhenNoNewErrors
	case api.WhenNoNewErrors, api.WhenAlways:
	default:
		return out, api.InvalidParams("when: %q (expected %q or %q)", p.When, api.WhenNoNewErrors, api.WhenAlways)
	}
	edits := p.Edits
	if p.Preview != "" {
		if len(edits) > 0 {
			return out, api.InvalidParams("give edits or a preview, one of them")
		}
		var err error
		if edits, err = f.previews.edits(p.Preview); err != nil {
			return out, err
		}
	}
	files, stale, err := f.planFiles(edits)
	if err != nil {
		return out, err
	}
	for _, file := range files {
		out.Files = append(out.Files, file.rel)
	}
	out.Hashes = hashesOf(files, false)
	if stale != "" {
		out.Reason = stale + "; nothing was written"
		return out, nil
	}
	if len(files) == 0 {
		out.Reason = "the edits change nothing; nothing was written"
		return out, nil
	}
	introduced, fixed, impact, unchecked, err := f.delta(ctx, files)
	if err != nil {
		return out, err
	}
	out.Introduced, out.Fixed, out.Impact = introduced, fixed, impact
	if when == api.WhenNoNewErrors {
		switch {
		case len(introduced) > 0:
			out.Reason = fmt.Sprintf("%d new %s; nothing was written", len(introduced), api.Plural(len(introduced), "error", "errors"))
			return out, nil
		case unchecked != "":
			out.Reason = unchecked + ": whether the edits break nothing is not known; nothing was written (\"when\": \"always\" writes all the same)"
			return out, nil
		}
	} else if unchecked != "" {
		out.Note = unchecked
	}
	if err := replaceFiles(files, "the edits", nil); err != nil {
		if errors.Is(err, errStale) {
			out.Reason = err.Error()
			out.Hashes = nil
			return out, nil
		}
		return out, err
	}
	out.Applied = true
	out.Hashes = hashesOf(files, true)
	out.Note = api.JoinNotes(out.Note, f.core.Refresh(ctx))
	return out, nil
}

// planFiles reads each edited file and makes its new text. A file whose
// base is not the disk's is named in stale (and nothing more is planned);
// a file the edits leave as it is, is left out.
func (f *Features) planFiles(edits []api.FileEdit) (files []fileEdit, stale string, err error) {
	if len(edits) == 0 {
		return nil, "", api.InvalidParams("edits: none given (or a preview's id)")
	}
	seen := map[string]string{}
	for i, e := range edits {
		where := fmt.Sprintf("edits[%d]", i)
		if e.File == "" {
			return nil, "", api.InvalidParams("%s: file is required", where)
		}
		if (e.Text == nil) == (len(e.Changes) == 0) {
			return nil, "", api.InvalidParams("%s (%s): give text or changes, one of them", where, e.File)
		}
		abs, err := f.core.Resolve(e.File)
		if err != nil {
			return nil, "", err
		}
		rel := f.core.Rel(abs)
		if other, dup := seen[abs]; dup {
			return nil, "", api.InvalidParams("%s: %s is edited twice (also as %s): give one edit per file", where, e.File, other)
		}
		seen[abs] = e.File
		data, err := os.ReadFile(abs)
		created := errors.Is(err, fs.ErrNotExist)
		if err != nil && !created {
			return nil, "", api.InvalidParams("%s: %s: %v", where, rel, err)
		}
		if created && e.Text == nil {
			return nil, "", api.NotFound(rel, err)
		}
		old := string(data)
		if e.Base != "" {
			if !strings.HasPrefix(e.Base, "sha256:") {
				return nil, "", api.InvalidParams("%s: base %q (expected \"sha256:\" and the hex SHA-256 of the file as the edit was made from it)", where, e.Base)
			}
			if created || hashOf(old) != e.Base {
				now := "it does not exist"
				if !created {
					now = "it is " + hashOf(old)
				}
				return nil, fmt.Sprintf("%s changed since the edit was made from it (base %s; %s)", rel, e.Base, now), nil
			}
		}
		text := old
		if e.Text != nil {
			text = *e.Text
		} else if text, err = applyChanges(old, e.Changes); err != nil {
			return nil, "", api.InvalidParams("%s (%s): %v", where, rel, err)
		}
		if text == old && !created {
			continue
		}
		files = append(files, fileEdit{path: abs, rel: rel, old: old, new: text, edits: max(len(e.Changes), 1), created: created})
	}
	slices.SortFunc(files, func(a, b fileEdit) int { return strings.Compare(a.rel, b.rel) })
	return files, "", nil
}

// applyChanges makes text's changes, each by a range of 1-based lines and
// characters whose end is the position after the last character replaced.
func applyChanges(text string, changes []api.TextChange) (string, error) {
	starts := lineStarts(text)
	edits := make([]textedit.Edit, 0, len(changes))
	for i, c := range changes {
		start, err := offsetOf(text, starts, c.Range.StartLine, c.Range.StartChar)
		if err != nil {
			return "", fmt.Errorf("changes[%d]: start: %w", i, err)
		}
		end, err := offsetOf(text, starts, c.Range.EndLine, c.Range.EndChar)
		if err != nil {
			return "", fmt.Errorf("changes[%d]: end: %w", i, err)
		}
		if end < start {
			return "", fmt.Errorf("changes[%d]: the range ends before it starts", i)
		}
		edits = append(edits, textedit.Edit{Start: start, End: end, New: c.NewText})
	}
	return textedit.Apply(text, edits)
}

// offsetOf is the byte offset of a 1-based line and character: a
// character past the line's end is its end; the line after the last is
// the text's end.
func offsetOf(text string, starts []int, line, char int) (int, error) {
	switch {
	case line < 1 || char < 1:
		return 0, fmt.Errorf("line %d, character %d: both are 1-based", line, char)
	case line == len(starts)+1 && char == 1:
		return len(text), nil
	case line > len(starts):
		return 0, fmt.Errorf("line %d is past the end of the file (its last line is %d)", line, len(starts))
	}
	at := starts[line-1]
	end := len(text)
	if line < len(starts) {
		end = starts[line] - 1 // before the newline
	}
	for n := 1; n < char && at < end; n++ {
		_, size := utf8.DecodeRuneInString(text[at:end])
		at += size
	}
	return at, nil
}

// delta checks the edits' texts together with their impact, and the same
// files as they are on disk, and returns the errors only the edits have
// (introduced) and those only the disk has (fixed), the impact, and what
// could not be checked ("" when everything was). Each file is compared
// with itself on the same server: the edited files as they are on disk
// first (the servers hold most of them already, idle, and no given text
// has to be taken back after); then the what-if with its impact; then the
// files the what-if leaves with errors, as they are on disk, as the
// impact of the disk's texts — on the servers that found their errors,
// whose findings another server (another root's) would not share.
func (f *Features) delta(ctx context.Context, files []fileEdit) (introduced, fixed []api.Diagnostic, impact *api.Impact, unchecked string, err error) {
	var why []string
	var edited []string
	proposed := map[string]string{}
	moves := map[string][]int{}
	for _, file := range files {
		proposed[file.rel] = file.new
		if !file.created {
			edited = append(edited, file.rel)
			moves[file.rel] = textedit.LineMap(file.old, file.new)
		}
	}
	beforeDiags, err := f.onDisk(ctx, edited, &why)
	if err != nil {
		return nil, nil, nil, "", err
	}
	after, err := f.core.Check(ctx, api.CheckParams{Files: proposed, Impact: true, Severities: []string{"error"}})
	if err != nil {
		return nil, nil, nil, "", err
	}
	afterDiags := slices.Clone(after.Diagnostics)
	if !after.Checked {
		why = append(why, "the edited files were not fully checked: "+after.Reason)
	}
	impact = after.Impact
	others := []string{}
	if impact != nil {
		for _, file := range impact.Files {
			afterDiags = append(afterDiags, file.Diagnostics...)
			if _, ok := proposed[file.File]; !ok {
				others = append(others, file.File)
			}
		}
		if !impact.Complete {
			why = append(why, "not every file the edits may affect was checked: "+impact.Reason)
		}
	}
	compared := map[string]bool{}
	for _, file := range files {
		compared[file.rel] = true
	}
	if len(others) > 0 {
		// The disk's texts — a file the edits make, empty — with those
		// files as their impact.
		given := map[string]string{}
		for _, file := range files {
			if file.created {
				given[file.rel] = ""
			}
		}
		res, err := f.core.Check(ctx, api.CheckParams{Files: given, OnDisk: edited, Impact: true, ImpactOnly: others, Severities: []string{"error"}})
		if err != nil {
			return nil, nil, nil, "", err
		}
		if res.Impact != nil {
			for _, file := range res.Impact.Files {
				beforeDiags = append(beforeDiags, file.Diagnostics...)
			}
			if res.Checked {
				for _, file := range res.Impact.CheckedFiles {
					compared[file] = true
				}
			}
		}
		var unknown []string
		for _, other := range others {
			if !compared[other] {
				unknown = append(unknown, other)
			}
		}
		if len(unknown) > 0 {
			why = append(why, fmt.Sprintf("%s had errors with the edits but could not be checked as they are on disk, so whether the edits broke them is not known", listFiles(unknown)))
		}
	}
	// A file checked only with the edits says nothing of what they do.
	afterDiags = slices.DeleteFunc(afterDiags, func(d api.Diagnostic) bool { return !compared[d.File] })
	introduced, fixed = findings.Compare(beforeDiags, afterDiags, func(file string) []int { return moves[file] })
	return introduced, fixed, impact, strings.Join(why, "; "), nil
}

// listFiles names files, the first five of them and how many more.
func listFiles(files []string) string {
	if len(files) <= 5 {
		return strings.Join(files, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(files[:5], ", "), len(files)-5)
}

// onDisk checks files as they are on disk, at once, and returns their
// errors; a file not fully checked is said in why.
func (f *Features) onDisk(ctx context.Context, names []string, why *[]string) ([]api.Diagnostic, error) {
	results := make([]api.CheckResult, len(names))
	errs := make([]error, len(names))
	var wg conc.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			results[i], errs[i] = f.core.Check(ctx, api.CheckParams{FilePath: name, Severities: []string{"error"}})
		})
	}
	if p := wg.WaitAndRecover(); p != nil {
		return nil, fmt.Errorf("the files as they are on disk: internal error: %v", p.Value)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var diags []api.Diagnostic
	for i, res := range results {
		if !res.Checked {
			*why = append(*why, fmt.Sprintf("%s as it is on disk was not fully checked: %s", names[i], res.Reason))
		}
		diags = append(diags, res.Diagnostics...)
	}
	return diags, nil
}

// hashOf is text's base: "sha256:" and its hex SHA-256.
func hashOf(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// hashesOf is each file's base, of its new text or its old.
func hashesOf(files []fileEdit, written bool) map[string]string {
	out := map[string]string{}
	for _, file := range files {
		switch {
		case written:
			out[file.rel] = hashOf(file.new)
		case !file.created:
			out[file.rel] = hashOf(file.old)
		}
	}
	return out
}
