package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/conc/pool"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/registry"
)

// This file checks files as they are on disk on a server, each opened,
// waited on until settled and closed again unless it was open: an
// impact's dependents, a sweep's files (CheckOnDisk).

// A Serving is one server of a file and the root it runs in, as
// ServersOf finds them: a key for grouping files by server.
type Serving struct {
	Server, Root string
	spec         *registry.Spec
}

// ServersOf returns the enabled servers for the file at path (absolute,
// inside the root), in id order; none when LSP is disabled.
func (o *Orchestrator) ServersOf(path string) []Serving {
	var out []Serving
	for _, t := range o.serversFor(path) {
		out = append(out, Serving{Server: t.spec.ID, Root: t.root, spec: t.spec})
	}
	return out
}

// onDiskBatch is how many files CheckOnDisk has open on one server at
// once.
const onDiskBatch = 16

// CheckOnDisk checks files (absolute, each one sv serves) on sv's server
// as they are on disk, onDiskBatch at a time, each batch within the
// server's timeout: each is opened, waited on until settled and closed
// again unless it was open. advance is told how many files each batch
// was. It returns the findings, the files that settled, and why not all
// did ("" when all did).
func (o *Orchestrator) CheckOnDisk(ctx context.Context, sv Serving, files []string, advance func(n int)) ([]api.Diagnostic, []string, string) {
	g := checkGroup{t: target{spec: sv.spec, root: sv.Root}}
	for _, f := range files {
		g.files = append(g.files, checkFile{abs: f})
	}
	s, err := o.session(g.t)
	if err != nil {
		advance(len(g.files))
		return nil, nil, fmt.Sprintf("%s: %v", g.t.spec.ID, err)
	}
	defer s.used()
	timeout := o.cfg.DiagnosticTimeout
	if s.cold() {
		timeout = o.cfg.FirstTouchTimeout
	}
	wait, cancel := context.WithTimeout(ctx, timeout)
	c, release, verdict, reason := s.awaitHeld(wait, false)
	cancel()
	if c == nil {
		advance(len(g.files))
		return nil, nil, fmt.Sprintf("%s is %s: %s", g.t.spec.ID, verdict, reason)
	}
	defer release()
	s.refresh(ctx, c, "")
	var diags []api.Diagnostic
	var settled []string
	var missed lateOrFailed
	var mu sync.Mutex
	start := time.Now()
	for batch := range slices.Chunk(g.files, onDiskBatch) {
		bctx, cancel := context.WithTimeout(ctx, timeout)
		p := pool.New().WithMaxGoroutines(onDiskBatch)
		for _, f := range batch {
			p.Go(func() {
				ds, err := s.checkDependent(bctx, c, f.abs)
				mu.Lock()
				defer mu.Unlock()
				diags = append(diags, ds...)
				if err == nil {
					settled = append(settled, f.abs)
				} else {
					missed.add(o.rel(f.abs), err)
				}
			})
		}
		p.Wait()
		cancel()
		advance(len(batch))
		if timeout == o.cfg.FirstTouchTimeout {
			s.warmed(c)
			timeout = o.cfg.DiagnosticTimeout
		}
		if ctx.Err() != nil {
			break
		}
	}
	for _, f := range g.files[len(settled)+len(missed.late)+len(missed.failed):] {
		missed.add(o.rel(f.abs), errLate) // the caller gave up before their batch
	}
	return diags, settled, strings.Join(missed.reasons(g.t.spec.ID, len(g.files), time.Since(start).Milliseconds(), "files"), "; ")
}

// checkDependent brings path to c as it is on disk, waits for its
// findings within ctx and closes it again unless it was open before; it
// returns the findings, and why the server did not settle on them ("" when
// it did; errLate when it ran out of time).
func (s *session) checkDependent(ctx context.Context, c *client.Client, path string) ([]api.Diagnostic, error) {
	uri, src, wasOpen, err := s.dependentSource(path)
	if err != nil {
		return nil, err
	}
	a, err := s.diagnose(ctx, c, path, s.spec.LanguageID(path), src)
	if err != nil {
		return nil, s.diagnoseError(ctx, path, err)
	}
	diags := s.o.convert(s.spec.ID, c, a.URI, a.Diagnostics, src.text)
	if !wasOpen {
		s.closeDocument(c, uri, path)
	}
	return diags, s.settleError(c, path, a)
}

// checkDependents is checkDependent for many files at once, on a server
// whose settle signal answers for many (client.CanDiagnoseMany): all are
// brought to c as they are on disk, settled by one run of the signal, and
// closed again unless they were open before. It returns, in the order of
// paths, each file's findings and why it did not settle (nil when it did;
// errLate when it ran out of time).
func (s *session) checkDependents(ctx context.Context, c *client.Client, paths []string) []dependentResult {
	out := make([]dependentResult, len(paths))
	var texts []client.Text
	var at []int // the index in out of each text
	var srcs []source
	open := map[int]bool{}
	for i, path := range paths {
		out[i].path = path
		_, src, wasOpen, err := s.dependentSource(path)
		if err != nil {
			out[i].err = err
			continue
		}
		open[i] = wasOpen
		texts = append(texts, client.Text{Path: path, LanguageID: s.spec.LanguageID(path), Text: src.text, Saved: src.disk})
		at = append(at, i)
		srcs = append(srcs, src)
	}
	if len(texts) == 0 {
		return out
	}
	answers, err := c.DiagnoseMany(ctx, texts)
	if err != nil {
		for _, i := range at {
			out[i].err = s.diagnoseError(ctx, paths[i], err)
		}
		return out
	}
	for k, a := range answers {
		i, path := at[k], paths[at[k]]
		out[i].diags = s.o.convert(s.spec.ID, c, a.URI, a.Diagnostics, srcs[k].text)
		switch {
		case !open[i]:
			s.closeDocument(c, a.URI, path)
		case a.Version > 0:
			s.record(ctx, c, a.URI, a.Version, srcs[k])
		}
		out[i].err = s.settleError(c, path, a)
	}
	return out
}

// dependentResult is one file's part of checkDependents.
type dependentResult struct {
	path  string
	diags []api.Diagnostic
	err   error
}

// dependentSource reads a dependent as it is on disk: its URI, its text,
// and whether s's server has it open; an error for a file that cannot be
// read or is binary.
func (s *session) dependentSource(path string) (protocol.DocumentURI, source, bool, error) {
	uri, err := protocol.FileURI(path)
	if err != nil {
		return "", source{}, false, err
	}
	s.mu.Lock()
	_, wasOpen := s.changes[uri]
	s.mu.Unlock()
	src, err := readSource(path, s.o.maxFileBytes())
	switch {
	case err != nil:
		return uri, src, wasOpen, fmt.Errorf("%s %w", s.o.rel(path), err)
	case binary([]byte(src.text)):
		return uri, src, wasOpen, fmt.Errorf("%s is a binary file", s.o.rel(path))
	}
	return uri, src, wasOpen, nil
}

// diagnoseError is why a dependent was not checked when asking for its
// findings failed: errLate when the time ran out or another check held it.
func (s *session) diagnoseError(ctx context.Context, path string, err error) error {
	if ctx.Err() != nil || errors.Is(err, client.ErrDocumentBusy) {
		return errLate
	}
	return fmt.Errorf("%s: %w", s.o.rel(path), err)
}

// settleError is why the server did not settle on a dependent's answer
// a: nil when it did, errLate when it ran out of time.
func (s *session) settleError(c *client.Client, path string, a client.Answer) error {
	switch a.Settle {
	case client.Settled:
		return nil
	case client.TimedOut:
		return errLate
	case client.ServerGone:
		return fmt.Errorf("%s: the server is gone: %s", s.o.rel(path), c.Status().Reason)
	}
	return fmt.Errorf("%s: %s", s.o.rel(path), a.Reason)
}

// errLate says a file was not checked in the time there was.
var errLate = errors.New("not checked in time")

// lateOrFailed sorts the files a batch did not check into those out of
// time (late, by name) and the others (failed, by reason).
type lateOrFailed struct {
	late, failed []string
}

func (l *lateOrFailed) add(rel string, err error) {
	if errors.Is(err, errLate) {
		l.late = append(l.late, rel)
	} else {
		l.failed = append(l.failed, err.Error())
	}
}

// reasons says, in clauses, which files were not checked and why, of
// total, after ms milliseconds.
func (l *lateOrFailed) reasons(id string, total int, ms int64, what string) []string {
	var out []string
	if len(l.late) > 0 {
		slices.Sort(l.late)
		out = append(out, fmt.Sprintf("%s: %d of %d %s were not checked within %d ms: %s", id, len(l.late), total, what, ms, listSome(l.late, 5)))
	}
	if len(l.failed) > 0 {
		slices.Sort(l.failed)
		out = append(out, fmt.Sprintf("%s: %d of %d %s could not be checked: %s", id, len(l.failed), total, what, listSome(l.failed, 3)))
	}
	return out
}

// closeDocument closes a document lspkit opened for a moment (an impact's
// dependent), unless another request took it up meanwhile.
func (s *session) closeDocument(c *client.Client, uri protocol.DocumentURI, path string) {
	s.mu.Lock()
	delete(s.changes, uri)
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(s.o.life, 5*time.Second)
	defer cancel()
	if err := c.CloseDocument(ctx, path); err != nil && ctx.Err() == nil {
		s.o.log.Warn("close a file an impact Held", "server", s.spec.ID, "file", s.o.rel(path), "err", err)
	}
}
