package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	lspdaemon "github.com/lspkit/lspkit/daemon"
	"github.com/lspkit/lspkit/service/api"
)

// grepSymbol is a Grep pattern that asks for a symbol by name: a bare
// identifier, with word boundaries or after a declaring keyword ("func
// Greet", "class\s+Counter") — the searches a language server answers
// exactly, a call's opening parenthesis allowed after it ("Greet\(").
// Its group is the name.
var grepSymbol = regexp.MustCompile(`^(?:\\b)?(?:(?:func|def|class|type|interface|struct|enum|trait|fn|const|let|var|function)(?:\\s\+|\\s\*| +))?([A-Za-z_][A-Za-z0-9_]*)(?:\\b)?(?:\\\(|\\\[|\()?$`)

// grepHintMinLength leaves out names too short to be worth a server's
// lookup (i, id, ok): a Grep for them is rarely a symbol search.
const grepHintMinLength = 3

// grepHint is `lspkit hook claude-code` on Claude Code's PreToolUse of
// Grep: when the pattern is a symbol's name and the language servers know
// a symbol of that name in the workspace, the context to add for the model
// (never a block, never a permission decision): the lspkit tools that
// answer it exactly, with the calls to make. Anything else — another
// pattern, no such symbol, or no answer within within — is "", and the
// Grep runs as asked.
func grepHint(ctx context.Context, d *lspdaemon.Daemon, within time.Duration, pattern string) string {
	m := grepSymbol.FindStringSubmatch(pattern)
	if m == nil || len(m[1]) < grepHintMinLength {
		return ""
	}
	name := m[1]
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	res, err := d.WorkspaceSymbols(ctx, api.QueryParams{Query: name})
	if err != nil {
		return ""
	}
	return grepHintText(name, res.Symbols)
}

// grepHintText is the context added for a Grep of name: the symbols of
// that very name (a method's "Type.name" included) and the calls that
// answer it, or "" when there is none.
func grepHintText(name string, symbols []api.WorkspaceSymbol) string {
	var found []string
	for _, s := range symbols {
		if s.Name != name && !strings.HasSuffix(s.Name, "."+name) {
			continue
		}
		found = append(found, fmt.Sprintf("%s %s (%s:%d)", s.Kind, s.Name, s.File, s.Range.StartLine))
	}
	if len(found) == 0 {
		return ""
	}
	more := ""
	if len(found) > 3 {
		more = fmt.Sprintf(" and %d more", len(found)-3)
		found = found[:3]
	}
	arg := fmt.Sprintf(`{"symbol": %q}`, name)
	return fmt.Sprintf("lspkit: %q is a symbol the language servers know: %s%s. Its definition, every reference and its callers come exactly "+
		"(no matches in comments or strings, none missed through aliases or imports) from mcp__lspkit__lsp_goto_definition %s, "+
		"mcp__lspkit__lsp_find_references %s, or mcp__lspkit__lsp_symbol_context %s (definition, hover, references and callers in one call); "+
		"mcp__lspkit__lsp_workspace_symbols {\"query\": %q} lists symbols by name. The Grep runs as asked.",
		name, strings.Join(found, ", "), more, arg, arg, arg, name)
}

// defaultHintWithin bounds the Grep hint's lookup: Claude Code waits for
// a PreToolUse hook before it runs the Grep, and a hint that comes late
// is worth less than the search it holds up.
const defaultHintWithin = 3 * time.Second
