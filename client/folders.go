package client

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"github.com/lspkit/lspkit/protocol"
)

// folders is the workspace folders a server serves: the root first.
type folders struct {
	mu    sync.Mutex
	paths []string
}

func (f *folders) list() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.paths)
}

// add appends path unless it is there; it reports whether it added it.
func (f *folders) add(path string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if slices.Contains(f.paths, path) {
		return false
	}
	f.paths = append(f.paths, path)
	return true
}

// workspaceFolders is paths as the protocol's folders.
func workspaceFolders(paths []string) ([]protocol.WorkspaceFolder, error) {
	out := make([]protocol.WorkspaceFolder, 0, len(paths))
	for _, p := range paths {
		uri, err := protocol.FileURI(p)
		if err != nil {
			return nil, err
		}
		out = append(out, protocol.WorkspaceFolder{URI: protocol.URI(uri), Name: filepath.Base(p)})
	}
	return out, nil
}

// Folders returns the workspace folders the server serves, its root first.
func (c *Client) Folders() []string { return c.folders.list() }

// SupportsFolders reports whether the server takes workspace folders
// added while it runs: it declared workspace folders supported, with
// change notifications.
func (c *Client) SupportsFolders() bool {
	caps := c.caps.Load()
	if caps == nil || caps.Workspace == nil || caps.Workspace.WorkspaceFolders == nil {
		return false
	}
	wf := caps.Workspace.WorkspaceFolders
	if wf.Supported == nil || !*wf.Supported {
		return false
	}
	if b, ok := wf.ChangeNotifications.AsBoolean(); ok {
		return b
	}
	s, ok := wf.ChangeNotifications.AsString()
	return ok && s != ""
}

// AddFolder makes path (absolute) one more workspace folder of the server
// (workspace/didChangeWorkspaceFolders); a folder it has is left as it is.
// A server that does not take folders while it runs is an error.
func (c *Client) AddFolder(ctx context.Context, path string) error {
	if slices.Contains(c.folders.list(), path) {
		return nil
	}
	if !c.SupportsFolders() {
		return fmt.Errorf("client: %s: adding workspace folder %s: the server does not take workspace folder changes", c.cfg.Name, path)
	}
	if !c.folders.add(path) {
		return nil
	}
	added, err := workspaceFolders([]string{path})
	if err != nil {
		return err
	}
	c.inputChanged()
	err = protocol.DidChangeWorkspaceFoldersNotification.Notify(ctx, c.conn, protocol.DidChangeWorkspaceFoldersParams{
		Event: protocol.WorkspaceFoldersChangeEvent{Added: added, Removed: []protocol.WorkspaceFolder{}},
	})
	if err != nil {
		return fmt.Errorf("client: %s: adding workspace folder %s: %w", c.cfg.Name, path, err)
	}
	return nil
}
