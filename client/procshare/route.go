package procshare

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/protocol"
)

// recipients is who a message of the server is for: the member whose
// folder or document it names, else every member.
func (g *group) recipients(msg message) []*member {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.members) == 0 {
		return nil
	}
	var uri string
	switch msg.method {
	case "textDocument/publishDiagnostics":
		var p struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(msg.params, &p) == nil {
			uri = p.URI
			for _, m := range g.members {
				if m.open[uri] {
					return []*member{m}
				}
			}
		}
	case "workspace/configuration":
		var p struct {
			Items []struct {
				ScopeURI string `json:"scopeUri"`
			} `json:"items"`
		}
		if json.Unmarshal(msg.params, &p) == nil {
			for _, it := range p.Items {
				if it.ScopeURI != "" {
					uri = it.ScopeURI
					break
				}
			}
		}
		if uri == "" {
			return g.members[:1] // unscoped: the settings are the same for every member (the command is)
		}
	case "workspace/applyEdit":
		var p struct {
			Edit jsontext.Value `json:"edit"`
		}
		if json.Unmarshal(msg.params, &p) == nil {
			if uris := editURIs(p.Edit); len(uris) > 0 {
				uri = uris[0]
			}
		}
		if uri == "" {
			return g.members[:1]
		}
	case "window/showMessageRequest", "window/showDocument":
		return g.members[:1] // one answer is wanted, and one user
	}
	if uri != "" {
		if m := g.owner(uri); m != nil {
			return []*member{m}
		}
	}
	return slices.Clone(g.members)
}

// owner is the member whose folder holds uri most closely, or nil. The
// caller holds g.mu.
func (g *group) owner(uri string) *member {
	path, err := protocol.DocumentURI(uri).Path()
	if err != nil {
		return nil
	}
	var best *member
	longest := -1
	for _, m := range g.members {
		for _, f := range m.folders {
			if within(path, f) && len(f) > longest {
				best, longest = m, len(f)
			}
		}
	}
	return best
}

// within reports whether path is dir or under it.
func within(path, dir string) bool {
	if path == dir {
		return true
	}
	return strings.HasPrefix(path, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// foreign reports whether uri is in another member's folder than m's.
func (g *group) foreign(m *member, uri string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	o := g.owner(uri)
	return o != nil && o != m
}

// allFolders is every member's folders as the protocol's WorkspaceFolder
// list: the answer to workspace/workspaceFolders.
func (g *group) allFolders() []byte {
	g.mu.Lock()
	var paths []string
	for _, m := range g.members {
		paths = append(paths, m.folders...)
	}
	g.mu.Unlock()
	b, _ := json.Marshal(workspaceFolders(paths))
	return b
}

// workspaceFolders is paths as the protocol's folders.
func workspaceFolders(paths []string) []protocol.WorkspaceFolder {
	out := make([]protocol.WorkspaceFolder, 0, len(paths))
	for _, p := range paths {
		if uri, err := protocol.FileURI(p); err == nil {
			out = append(out, protocol.WorkspaceFolder{URI: protocol.URI(uri), Name: filepath.Base(p)})
		}
	}
	return out
}

// foldersChange is a didChangeWorkspaceFolders' params.
func foldersChange(added, removed []string) []byte {
	b, _ := json.Marshal(map[string]any{"event": map[string]any{"added": workspaceFolders(added), "removed": workspaceFolders(removed)}})
	return b
}

// foldersOf reads the folders an initialize asks for: its workspace
// folders, else its root.
func foldersOf(params []byte) []string {
	var p struct {
		RootURI          string `json:"rootUri"`
		WorkspaceFolders []struct {
			URI string `json:"uri"`
		} `json:"workspaceFolders"`
	}
	if json.Unmarshal(params, &p) != nil {
		return nil
	}
	var out []string
	for _, f := range p.WorkspaceFolders {
		if path, err := protocol.DocumentURI(f.URI).Path(); err == nil {
			out = append(out, path)
		}
	}
	if len(out) == 0 && p.RootURI != "" {
		if path, err := protocol.DocumentURI(p.RootURI).Path(); err == nil {
			out = append(out, path)
		}
	}
	return out
}

// folderChanges reads a didChangeWorkspaceFolders' added and removed
// folders.
func folderChanges(params []byte) (added, removed []string) {
	var p struct {
		Event struct {
			Added, Removed []struct {
				URI string `json:"uri"`
			}
		} `json:"event"`
	}
	if json.Unmarshal(params, &p) != nil {
		return nil, nil
	}
	for _, f := range p.Event.Added {
		if path, err := protocol.DocumentURI(f.URI).Path(); err == nil {
			added = append(added, path)
		}
	}
	for _, f := range p.Event.Removed {
		if path, err := protocol.DocumentURI(f.URI).Path(); err == nil {
			removed = append(removed, path)
		}
	}
	return added, removed
}

// initKey is an initialize's params less what differs between members of
// one process: their folders, process and client names, progress token.
func initKey(params []byte) string {
	var p map[string]jsontext.Value
	if json.Unmarshal(params, &p) != nil {
		return string(params)
	}
	for _, k := range []string{"processId", "clientInfo", "rootUri", "rootPath", "workspaceFolders", "workDoneToken", "trace", "locale"} {
		delete(p, k)
	}
	b, err := json.Marshal(p, json.Deterministic(true))
	if err != nil {
		return string(params)
	}
	return string(b)
}

// takesFolders reads from an initialize answer whether the server takes
// workspace folder changes.
func takesFolders(result []byte) bool {
	var r struct {
		Capabilities struct {
			Workspace struct {
				WorkspaceFolders struct {
					Supported           bool           `json:"supported"`
					ChangeNotifications jsontext.Value `json:"changeNotifications"`
				} `json:"workspaceFolders"`
			} `json:"workspace"`
		} `json:"capabilities"`
	}
	if json.Unmarshal(result, &r) != nil {
		return false
	}
	wf := r.Capabilities.Workspace.WorkspaceFolders
	switch cn := string(wf.ChangeNotifications); {
	case !wf.Supported, cn == "", cn == "false", cn == "null":
		return false
	}
	return true
}

// editURIs lists the documents a WorkspaceEdit changes.
func editURIs(edit []byte) []string {
	var e struct {
		Changes         map[string]jsontext.Value `json:"changes"`
		DocumentChanges []struct {
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
			URI    string `json:"uri"`
			OldURI string `json:"oldUri"`
			NewURI string `json:"newUri"`
		} `json:"documentChanges"`
	}
	if json.Unmarshal(edit, &e) != nil {
		return nil
	}
	uris := slices.Sorted(func(yield func(string) bool) {
		for u := range e.Changes {
			if !yield(u) {
				return
			}
		}
	})
	for _, d := range e.DocumentChanges {
		for _, u := range []string{d.TextDocument.URI, d.URI, d.OldURI, d.NewURI} {
			if u != "" {
				uris = append(uris, u)
			}
		}
	}
	return uris
}

// filtered are the requests whose answers may name files of any folder
// the server serves: locations, symbols, hierarchies, reports, edits.
var filtered = map[string]bool{
	"textDocument/definition":           true,
	"textDocument/declaration":          true,
	"textDocument/typeDefinition":       true,
	"textDocument/implementation":       true,
	"textDocument/references":           true,
	"textDocument/prepareCallHierarchy": true,
	"callHierarchy/incomingCalls":       true,
	"callHierarchy/outgoingCalls":       true,
	"textDocument/prepareTypeHierarchy": true,
	"typeHierarchy/supertypes":          true,
	"typeHierarchy/subtypes":            true,
	"textDocument/rename":               true,
	"textDocument/codeAction":           true,
	"codeAction/resolve":                true,
	"workspace/symbol":                  true,
	"workspace/diagnostic":              true,
	"workspace/executeCommand":          true,
	"workspace/willRenameFiles":         true,
	"workspace/willCreateFiles":         true,
	"workspace/willDeleteFiles":         true,
}

// uriKeys are the members that hold a document's URI.
var uriKeys = []string{"uri", "targetUri", "oldUri", "newUri"}

// leaveOut drops from an answer to m what names a file of another
// member's folder: an element of a list that names one (itself, or in one
// of its members: a location, a call's from or to, an edit's document),
// and an edit's changes to one.
func (g *group) leaveOut(m *member, result []byte) []byte {
	var v any
	if json.Unmarshal(result, &v) != nil {
		return result
	}
	v, changed := g.walk(m, v)
	if !changed {
		return result
	}
	b, err := json.Marshal(v)
	if err != nil {
		return result
	}
	return b
}

// walk is leaveOut over one value; it reports whether it left anything out.
func (g *group) walk(m *member, v any) (any, bool) {
	changed := false
	switch v := v.(type) {
	case []any:
		kept := v[:0:0]
		for _, e := range v {
			if g.names(m, e) {
				changed = true
				continue
			}
			e, c := g.walk(m, e)
			changed = changed || c
			kept = append(kept, e)
		}
		return kept, changed
	case map[string]any:
		for k, e := range v {
			if k == "changes" {
				if ch, ok := e.(map[string]any); ok {
					for uri := range ch {
						if g.foreign(m, uri) {
							delete(ch, uri)
							changed = true
						}
					}
				}
			}
			e, c := g.walk(m, e)
			if c {
				v[k], changed = e, true
			}
		}
		return v, changed
	}
	return v, false
}

// names reports whether a list element names a file of another member's
// folder, itself or in one of its members.
func (g *group) names(m *member, e any) bool {
	obj, ok := e.(map[string]any)
	if !ok {
		return false
	}
	if g.objectNames(m, obj) {
		return true
	}
	for _, child := range obj {
		if c, ok := child.(map[string]any); ok && g.objectNames(m, c) {
			return true
		}
	}
	return false
}

func (g *group) objectNames(m *member, obj map[string]any) bool {
	for _, k := range uriKeys {
		if s, ok := obj[k].(string); ok && g.foreign(m, s) {
			return true
		}
	}
	return false
}
