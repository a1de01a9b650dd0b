package client

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/client/filewatch"
	"github.com/lspkit/lspkit/protocol"
)

// registration is a dynamic registration with its document selector read
// once: nil matches every document.
type registration struct {
	protocol.Registration
	selector protocol.DocumentSelector
}

// registry is the server's dynamic registrations, by id, and what they
// imply for pull diagnostics, under its own lock.
type registry struct {
	mu       sync.Mutex
	regs     map[string]registration
	provider pullProvider
}

func newRegistry() *registry { return &registry{regs: map[string]registration{}} }

// byMethod returns the current registrations of method.
func (r *registry) byMethod(method string) []protocol.Registration {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []protocol.Registration
	for _, id := range slices.Sorted(maps.Keys(r.regs)) {
		if reg := r.regs[id]; reg.Method == method {
			out = append(out, reg.Registration)
		}
	}
	return out
}

// has reports whether method is registered for some document.
func (r *registry) has(method string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, reg := range r.regs {
		if reg.Method == method {
			return true
		}
	}
	return false
}

// matches reports whether method is registered for the document at uri
// with languageID.
func (r *registry) matches(method string, uri protocol.DocumentURI, languageID string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, reg := range r.regs {
		if reg.Method == method && selects(reg.selector, uri, languageID) {
			return true
		}
	}
	return false
}

// pullProvider returns what the capabilities and registrations say about
// pull diagnostics, as read when they last changed.
func (r *registry) pullProvider() pullProvider {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.provider
}

// all returns a copy of the registrations.
func (r *registry) all() map[string]protocol.Registration {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]protocol.Registration, len(r.regs))
	for id, reg := range r.regs {
		out[id] = reg.Registration
	}
	return out
}

// set replaces the registrations and recomputes the pull provider.
func (r *registry) set(regs map[string]protocol.Registration, caps *protocol.ServerCapabilities) {
	next := make(map[string]registration, len(regs))
	for id, reg := range regs {
		next[id] = registration{Registration: reg, selector: selectorOf(reg)}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.regs = next
	r.provider = readPullProvider(caps, regs)
}

// setCapabilities recomputes the pull provider for new capabilities.
func (r *registry) setCapabilities(caps *protocol.ServerCapabilities) {
	r.mu.Lock()
	defer r.mu.Unlock()
	plain := make(map[string]protocol.Registration, len(r.regs))
	for id, reg := range r.regs {
		plain[id] = reg.Registration
	}
	r.provider = readPullProvider(caps, plain)
}

// selectorOf reads a registration's documentSelector; nil (every document)
// when it has none or it is null.
func selectorOf(reg protocol.Registration) protocol.DocumentSelector {
	var o struct {
		DocumentSelector protocol.Nullable[protocol.DocumentSelector] `json:"documentSelector"`
	}
	if len(reg.RegisterOptions) == 0 || json.Unmarshal(reg.RegisterOptions, &o) != nil {
		return nil
	}
	sel, _ := o.DocumentSelector.Get()
	return sel
}

// selects reports whether a document selector matches the file document at
// uri with languageID; a nil selector matches everything.
func selects(sel protocol.DocumentSelector, uri protocol.DocumentURI, languageID string) bool {
	if sel == nil {
		return true
	}
	path, err := uri.Path()
	if err != nil {
		return false
	}
	for _, f := range sel {
		tf, ok := f.AsTextDocumentFilter()
		if !ok {
			continue // notebook cells: lspkit opens none
		}
		var lang, scheme *string
		var pattern protocol.GlobPattern
		if l, ok := tf.AsTextDocumentFilterLanguage(); ok {
			lang, scheme, pattern = &l.Language, l.Scheme, l.Pattern
		} else if s, ok := tf.AsTextDocumentFilterScheme(); ok {
			lang, scheme, pattern = s.Language, &s.Scheme, s.Pattern
		} else if p, ok := tf.AsTextDocumentFilterPattern(); ok {
			lang, scheme, pattern = p.Language, p.Scheme, p.Pattern
		}
		if lang != nil && *lang != "*" && *lang != languageID {
			continue
		}
		if scheme != nil && *scheme != "*" && *scheme != "file" {
			continue
		}
		if !pattern.IsZero() && !globMatches(pattern, path) {
			continue
		}
		return true
	}
	return false
}

// globMatches matches a document filter's glob against a file path: a plain
// pattern against the whole slash-separated path (or, when relative, any
// tail of it), a relative pattern against the path below its base.
func globMatches(g protocol.GlobPattern, path string) bool {
	name := filepath.ToSlash(path)
	if p, ok := g.AsPattern(); ok {
		glob := string(p)
		if doublestar.MatchUnvalidated(glob, name) {
			return true
		}
		return !filepath.IsAbs(glob) && doublestar.MatchUnvalidated("**/"+glob, name)
	}
	rel, _ := g.AsRelativePattern()
	dir, err := filewatch.BaseURI(rel).Path()
	if err != nil {
		return false
	}
	r, err := filepath.Rel(dir, path)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return false // not below the base
	}
	return doublestar.MatchUnvalidated(string(rel.Pattern), filepath.ToSlash(r))
}

// Supports reports whether the server answers method for the document at
// uri with languageID: its capabilities announce it (the generated check
// along the model's capability path), or a dynamic registration of the
// method (or of its registration method) selects the document. An empty uri
// asks about the server as a whole.
func (c *Client) Supports(method string, uri protocol.DocumentURI, languageID string) bool {
	caps := c.ServerCapabilities()
	if caps.Supports(method) {
		return true
	}
	reg := method
	if info, ok := protocol.LookupMethod(method); ok && info.RegistrationMethod != "" {
		reg = info.RegistrationMethod
	}
	if uri == "" {
		return c.regs.has(reg)
	}
	return c.regs.matches(reg, uri, languageID)
}

// Registrations returns the server's current dynamic registrations of
// method, ordered by id.
func (c *Client) Registrations(method string) []protocol.Registration { return c.regs.byMethod(method) }

// register applies a change to the registrations: when the watched-file
// registrations change, the file watcher is updated (its directories
// watched) before the change becomes visible.
func (c *Client) register(change func(map[string]protocol.Registration)) {
	c.regMu.Lock()
	defer c.regMu.Unlock()
	regs := c.regs.all()
	before := watched(regs)
	change(regs)
	after := watched(regs)
	if len(before) > 0 || len(after) > 0 {
		c.watchFiles(after)
	}
	caps := c.ServerCapabilities()
	c.regs.set(regs, &caps)
	c.pulls.startWorkspace()
	c.changes.wake()
}

// watched returns the workspace/didChangeWatchedFiles registrations,
// ordered by id.
func watched(regs map[string]protocol.Registration) []protocol.Registration {
	var out []protocol.Registration
	for _, id := range slices.Sorted(maps.Keys(regs)) {
		if regs[id].Method == protocol.DidChangeWatchedFilesNotification.Method() {
			out = append(out, regs[id])
		}
	}
	return out
}

func (s serverRequests) ClientRegisterCapability(ctx context.Context, p *protocol.RegistrationParams) error {
	pullNow := false
	s.c.register(func(regs map[string]protocol.Registration) {
		for _, r := range p.Registrations {
			regs[r.ID] = r
			pullNow = pullNow || r.Method == protocol.DocumentDiagnosticRequest.Method()
		}
	})
	if pullNow {
		// Pull diagnostics just became available: documents opened before
		// now have been waiting for a push that will not come.
		return s.WorkspaceDiagnosticRefresh(ctx)
	}
	return nil
}

func (s serverRequests) ClientUnregisterCapability(_ context.Context, p *protocol.UnregistrationParams) error {
	s.c.register(func(regs map[string]protocol.Registration) {
		for _, u := range p.Unregisterations {
			delete(regs, u.ID)
		}
	})
	return nil
}
