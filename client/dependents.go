package client

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/protocol"
)

// This file asks a server which files depend on a file: the project graph
// the server holds, where it answers such a question.

// goPackageClause finds a Go file's package clause: the name after the
// first "package" keyword at the start of a line.
var goPackageClause = regexp.MustCompile(`(?m)^[ \t]*package[ \t]+([\p{L}_][\p{L}\p{Nd}_]*)`)

// PackageDependents asks a Go server (gopls) for the files that depend on
// the package of the document uri whose text is text: the references to
// its package clause, which gopls answers with the package clause of every
// file of the package and the import of every file that imports it.
// The paths are absolute, uri's own left out.
func (c *Client) PackageDependents(ctx context.Context, uri protocol.DocumentURI, text string) ([]string, error) {
	m := goPackageClause.FindStringSubmatchIndex(text)
	if m == nil {
		return nil, fmt.Errorf("client: %s: package dependents of %s: no package clause", c.cfg.Name, uri)
	}
	line := strings.Count(text[:m[2]], "\n")
	col := m[2] - (strings.LastIndexByte(text[:m[2]], '\n') + 1)
	locs, err := c.References(ctx, uri, protocol.Position{Line: uint32(line), Character: uint32(col)}, false)
	if err != nil {
		return nil, err
	}
	return otherPaths(uri, locs), nil
}

// otherPaths are the distinct paths of locs other than uri's.
func otherPaths(uri protocol.DocumentURI, locs []protocol.Location) []string {
	own, _ := uri.Path()
	seen := map[string]bool{}
	var out []string
	for _, l := range locs {
		p, err := l.URI.Path()
		if err != nil || p == own || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// FileDependents asks typescript-language-server's tsserver for the files
// that import the file at path (its fileReferences request, through the
// typescript.tsserverRequest command). The paths are absolute, path's own
// left out.
func (c *Client) FileDependents(ctx context.Context, path string) ([]string, error) {
	args := []jsontext.Value{jsontext.Value(`"fileReferences"`), jsontext.Value(`{"file":` + strconv.Quote(path) + `}`)}
	res, err := protocol.ExecuteCommandRequest.Call(ctx, c.conn, protocol.ExecuteCommandParams{Command: "typescript.tsserverRequest", Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("client: %s: tsserver fileReferences %s: %w", c.cfg.Name, path, err)
	}
	var resp struct {
		Success bool   `json:"success"`
		Message string `json:"message"`
		Body    struct {
			Refs []struct {
				File string `json:"file"`
			} `json:"refs"`
		} `json:"body"`
	}
	if err := json.Unmarshal(res, &resp); err != nil {
		return nil, fmt.Errorf("client: %s: tsserver fileReferences %s: %w", c.cfg.Name, path, err)
	}
	if !resp.Success {
		return nil, fmt.Errorf("client: %s: tsserver fileReferences %s: %s", c.cfg.Name, path, resp.Message)
	}
	seen := map[string]bool{path: true}
	var out []string
	for _, r := range resp.Body.Refs {
		if !seen[r.File] {
			seen[r.File] = true
			out = append(out, r.File)
		}
	}
	return out, nil
}

// CompileCommand is a file's command in clangd's compilation database.
type CompileCommand struct {
	WorkingDirectory   string   `json:"workingDirectory"`
	CompilationCommand []string `json:"compilationCommand"`
}

// SetCompileCommands sets the commands of files (absolute paths) in
// clangd's compilation database (its compilationDatabaseChanges setting);
// clangd rebuilds those of them that are open.
func (c *Client) SetCompileCommands(ctx context.Context, cmds map[string]CompileCommand) error {
	settings, err := json.Marshal(map[string]any{"compilationDatabaseChanges": cmds})
	if err != nil {
		return err
	}
	c.inputChanged()
	if err := protocol.DidChangeConfigurationNotification.Notify(ctx, c.conn, protocol.DidChangeConfigurationParams{Settings: jsontext.Value(settings)}); err != nil {
		return fmt.Errorf("client: %s: set compile commands: %w", c.cfg.Name, err)
	}
	return nil
}
