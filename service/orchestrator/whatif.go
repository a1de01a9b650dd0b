package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/lspkit/lspkit/service/api"
)

// whatIf is a check of several proposed texts (p.Files, and p.FilePath
// with p.Text or the disk's, and p.OnDisk) together with their impact
// (unless p.NoImpact): each server gets
// the texts of its files at once, its dependents are checked against them,
// and it gets the disk's texts back before the answer. Nothing is written;
// other requests see the disk meanwhile. A path outside the root is an
// error naming it, as is a text over maxFileBytes; a path that does not
// exist is a new file.
func (o *Orchestrator) whatIf(ctx context.Context, res api.CheckResult, p api.CheckParams) (api.CheckResult, error) {
	// texts are the proposed texts by path; nil: the file on disk.
	texts := map[string]*string{}
	for name, text := range p.Files {
		texts[name] = &text
	}
	if _, dup := texts[p.FilePath]; p.FilePath != "" && !dup {
		texts[p.FilePath] = p.Text
	}
	for _, name := range p.OnDisk {
		if _, dup := texts[name]; !dup {
			texts[name] = nil
		}
	}
	if o.cfg.Disabled {
		res.Reason, res.Skipped = "LSP is disabled by configuration", api.SkippedDisabled
		return res, nil
	}
	var groups []checkGroup
	index := map[string]int{} // by server id and root
	seen := map[string]string{}
	var skipped []string
	for _, name := range slices.Sorted(maps.Keys(texts)) {
		if err := validPath("files", name); err != nil {
			return res, err
		}
		abs, ok := o.resolve(name)
		if !ok {
			return res, o.outsideRoot(name)
		}
		if other, dup := seen[abs]; dup {
			return res, api.InvalidParams("files: %q and %q are the same file", other, name)
		}
		seen[abs] = name
		text := texts[name]
		var src source
		if text == nil {
			var err error
			if src, err = readSource(abs, o.maxFileBytes()); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return res, api.NotFound(name, err)
				}
				return res, api.InvalidParams("filePath: %s %v", o.rel(abs), err)
			}
		} else {
			if n := int64(len(*text)); n > o.maxFileBytes() {
				return res, api.InvalidParams("files: the text of %s %s", o.rel(abs), (&tooBigError{n, o.maxFileBytes()}).Error())
			}
			src.text = *text
		}
		if glob, excluded := o.excluded(abs); excluded {
			skipped = append(skipped, fmt.Sprintf("%s is excluded by %q (config exclude)", o.rel(abs), glob))
			continue
		}
		if binary([]byte(src.text)) {
			skipped = append(skipped, o.rel(abs)+" is a binary file")
			continue
		}
		targets := o.serversFor(abs)
		if len(targets) == 0 {
			skipped = append(skipped, o.rel(abs)+": "+o.noServerReason(abs))
			continue
		}
		for _, t := range targets {
			key := t.spec.ID + "\x00" + t.root
			i, ok := index[key]
			if !ok {
				i = len(groups)
				index[key] = i
				groups = append(groups, checkGroup{t: t})
			}
			groups[i].files = append(groups[i].files, checkFile{abs, src})
		}
	}
	if len(groups) == 0 {
		res.Reason = strings.Join(skipped, "; ")
		return res, nil
	}
	res.Note = o.barrier(ctx)
	want := impactAlways
	if p.NoImpact {
		want = impactNone
	}
	res, _, err := o.runGroups(ctx, res, groups, p, want)
	if err == nil && len(skipped) > 0 {
		res.Checked = false
		res.Reason = strings.Join(append(skipped, res.Reason), "; ")
		res.Reason = strings.TrimSuffix(res.Reason, "; ")
	}
	return res, err
}
