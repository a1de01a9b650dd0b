package burst

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/findings"
	"github.com/lspkit/lspkit/service/textedit"
)

// noImpactBound is the impact's file bound for a burst's check: none that
// a workspace reaches (the time bound still holds).
const noImpactBound = 1 << 30

// feedback checks b's files as they are now (the disk), with every file
// that depends on them, and then the edited files as they were before the
// burst (a what-if of the old texts) with those dependents that have
// errors now, on the same servers, all within timeout; it answers with the errors only the disk has. A file
// with no error now has nothing new to say, so the second check is as
// small as what broke. turn words the text for the end of a turn.
func (t *Tracker) feedback(ctx context.Context, b baseline, timeout time.Duration, turn bool) api.BurstResult {
	start := time.Now()
	res := quiet()
	res.Edited = slices.Clone(b.files)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var why []string
	// The edited files now, those that exist.
	now := map[string]string{}
	for _, f := range b.files {
		if text, err := t.core.ReadFile(f); err == nil {
			now[f] = text
		}
	}
	// Before: the old texts, as a what-if. A file the burst made is given
	// empty (the project without it: its own errors then are all new);
	// one it deleted has its old text (a what-if's file that is not on
	// disk).
	old := map[string]string{}
	changed, deleted := false, false
	for _, f := range b.files {
		text, known := b.before[f]
		cur, exists := now[f]
		switch {
		case !known:
			changed = true
		case text == nil:
			if exists {
				old[f], changed = "", true
			}
		default:
			old[f] = *text
			changed = changed || !exists || cur != *text
			deleted = deleted || !exists
		}
	}
	if !changed {
		res.MS = time.Since(start).Milliseconds()
		return res // the texts are as they were: nothing can be new
	}
	// After: the disk, with every file that depends on the edited ones.
	// The files that depended on a deleted one depend on nothing the disk
	// has now: the before's what-if finds them, and they are checked
	// after it as files of their own.
	afterDiags := []api.Diagnostic{}
	afterChecked := map[string]bool{}
	check := func(p api.CheckParams, part float64, what string) (api.CheckResult, bool) {
		left := time.Until(deadline(ctx))
		p.TimeoutMs = int(max(time.Duration(float64(left)*part), time.Second) / time.Millisecond)
		p.Severities, p.ImpactMaxFiles = []string{"error"}, noImpactBound
		r, err := t.core.Check(ctx, p)
		if err != nil {
			why = append(why, fmt.Sprintf("%s could not be checked: %v", what, err))
			return r, false
		}
		if !r.Checked {
			why = append(why, what+" were not fully checked: "+r.Reason)
		}
		if r.Impact != nil && !r.Impact.Complete {
			why = append(why, "not every file that depends on "+what+" was checked: "+r.Impact.Reason)
		}
		return r, true
	}
	onDisk := slices.Sorted(maps.Keys(now))
	if len(onDisk) > 0 {
		ares, ok := check(api.CheckParams{OnDisk: onDisk, Impact: true}, 0.6, "the edited files")
		if !ok {
			return t.failed(res, start, strings.Join(why, "; "))
		}
		afterDiags = collect(ares, afterChecked)
	}
	var beforeDiags []api.Diagnostic
	beforeChecked := map[string]bool{}
	beforeUnknown := false
	if len(old) > 0 {
		// The files with errors now that the burst did not edit, checked
		// again as the impact of the old texts: on the servers that
		// found them, beside the texts the edits replaced (a file's
		// findings differ from one server's root to another's). A burst
		// that deleted a file has dependents the disk no longer shows:
		// all of them, then.
		others := []string{}
		for _, d := range afterDiags {
			if _, edited := b.before[d.File]; !edited && !b.unknown[d.File] && !slices.Contains(others, d.File) {
				others = append(others, d.File)
			}
		}
		p := api.CheckParams{Files: old, Impact: true, ImpactOnly: others}
		if deleted {
			p.ImpactOnly = nil
		}
		bres, ok := check(p, 1, "the files as they were before the edits")
		if !ok {
			return t.failed(res, start, strings.Join(why, "; "))
		}
		if !bres.Checked {
			// Which of its findings are missing is not known: none of the
			// errors now can be told new.
			beforeUnknown = true
		}
		beforeDiags = collect(bres, beforeChecked)
		if deleted {
			var orphans []string
			for f := range beforeChecked {
				if _, edited := b.before[f]; !edited && !b.unknown[f] && !afterChecked[f] {
					orphans = append(orphans, f)
				}
			}
			if len(orphans) > 0 {
				slices.Sort(orphans)
				if ores, ok := check(api.CheckParams{OnDisk: orphans, NoImpact: true}, 1, "the files that used the deleted ones"); ok {
					afterDiags = append(afterDiags, collect(ores, afterChecked)...)
				}
			}
		}
	}
	res.Checked = len(afterChecked)
	// A finding counts as new only where there is a before to compare
	// with: the edited files whose text before is known, and the files
	// checked beside the old texts.
	var unseen, uncompared []string
	for _, f := range b.files {
		if b.unknown[f] {
			unseen = append(unseen, f)
		}
	}
	comparable := func(file string) bool {
		if beforeUnknown {
			return false
		}
		if _, ok := b.before[file]; ok {
			return true
		}
		return beforeChecked[file]
	}
	var kept []api.Diagnostic
	for _, d := range afterDiags {
		switch {
		case b.unknown[d.File]:
			kept = append(kept, d) // said, with the note that it may be old
		case comparable(d.File):
			kept = append(kept, d)
		case !slices.Contains(uncompared, d.File):
			uncompared = append(uncompared, d.File)
		}
	}
	moved := func(file string) []int {
		if text := b.before[file]; text != nil {
			if cur, ok := now[file]; ok {
				return textedit.LineMap(*text, cur)
			}
		}
		return nil
	}
	introduced, _ := findings.Compare(beforeDiags, kept, moved)
	for _, d := range introduced {
		res.New[d.File] = append(res.New[d.File], d)
	}
	if len(unseen) > 0 {
		why = append(why, fmt.Sprintf("lspkit did not see %s before %s edited, so %s errors are all listed, and the files %s broke may not be",
			strings.Join(unseen, ", "), api.Plural(len(unseen), "it was", "they were"), api.Plural(len(unseen), "its", "their"), api.Plural(len(unseen), "it", "they")))
	}
	if len(uncompared) > 0 {
		slices.Sort(uncompared)
		why = append(why, fmt.Sprintf("%s had errors after the edits but could not be checked before them, so whether they are new is not known (they are not listed)", strings.Join(uncompared, ", ")))
	}
	res.Complete = len(why) == 0
	res.Reason = strings.Join(why, "; ")
	res.Text = t.render(res.Edited, res.New, res, turn)
	res.MS = time.Since(start).Milliseconds()
	return res
}

// collect gathers a check's errors, of its files and of their impact, and
// marks the files it checked.
func collect(res api.CheckResult, checked map[string]bool) []api.Diagnostic {
	out := slices.Clone(res.Diagnostics)
	for _, d := range res.Diagnostics {
		checked[d.File] = true
	}
	if res.Impact != nil {
		for _, f := range res.Impact.CheckedFiles {
			checked[f] = true
		}
		for _, f := range res.Impact.Files {
			out = append(out, f.Diagnostics...)
		}
	}
	return out
}

// deadline is ctx's deadline, or an hour away.
func deadline(ctx context.Context) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return time.Now().Add(time.Hour)
}

// failed is res when a check could not be made at all: not complete, and
// said so.
func (t *Tracker) failed(res api.BurstResult, start time.Time, why string) api.BurstResult {
	res.Complete, res.Reason = false, why
	res.Text = t.render(res.Edited, res.New, res, false)
	res.MS = time.Since(start).Milliseconds()
	return res
}

// render is the feedback's text: the new errors in lsp/report's blocks,
// the edited files first, then the files they broke, and what could not
// be checked; "" when there is nothing to say. turn words it for the end
// of a turn.
func (t *Tracker) render(edited []string, diags api.FileDiagnostics, res api.BurstResult, turn bool) string {
	var others []string
	for _, f := range slices.Sorted(maps.Keys(diags)) {
		if !slices.Contains(edited, f) && len(diags[f]) > 0 {
			others = append(others, f)
		}
	}
	text := findings.Feedback{Changed: edited, Others: others, Diagnostics: diags, PerFile: t.cfg.MaxDiagnosticsPerFile, Lines: feedbackLines}.Text()
	if !res.Complete {
		if text != "" {
			text += "\n"
		}
		text += fmt.Sprintf("LSP could not check every file the edits may affect: %s\n", findings.Escape(res.Reason))
	}
	if text != "" && turn {
		text = "Your turn is ending with errors your edits in it introduced. Fix them, or end your turn again to leave them as they are.\n\n" + text
	}
	return text
}
