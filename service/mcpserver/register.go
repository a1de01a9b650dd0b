package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspkit/lspkit/service/features"
	"github.com/lspkit/lspkit/service/orchestrator"
	"github.com/lspkit/lspkit/transport"
)

// Tool effects, for annotations.
const (
	readOnly = true
	writes   = false
)

// toolSet is where add registers tools.
type toolSet struct {
	server *mcp.Server
	// asks holds the read-only tools by name, for lsp_batch.
	asks map[string]asker
	// structured gives each tool an output schema and its results
	// structuredContent (config mcpStructuredContent); otherwise results
	// are their text alone, which is what the model should see.
	structured bool
}

// spec is a tool's name, title, description — its first sentence what
// it is for, in the words a user would search with — the words a host's
// tool search matches besides (anthropic/searchHint), and whether a host
// that loads tools on demand keeps it loaded (anthropic/alwaysLoad): the
// few a session needs first.
type spec struct {
	name, title, description, searchHint string
	alwaysLoad                           bool
}

// The _meta keys Claude Code reads from a tool: words its tool search
// matches, and a tool kept in context when the rest are searched for.
const (
	metaSearchHint = "anthropic/searchHint"
	metaAlwaysLoad = "anthropic/alwaysLoad"
)

// add registers a tool with its title, annotations (whether it writes)
// and input schema (and output schema when structured), inferred from the
// Go types, with concrete types for every property.
func add[In, Out any](ts toolSet, sp spec, readOnly bool, h mcp.ToolHandlerFor[In, Out]) {
	ann := &mcp.ToolAnnotations{ReadOnlyHint: readOnly, IdempotentHint: readOnly}
	if !readOnly {
		ann.DestructiveHint = new(true) // it overwrites files
	}
	in := schemaOf[In]()
	nonNullInputs(in)
	if sp.name == "lsp_batch" {
		// A question's args are any tool's: an object.
		in.Properties["questions"].Items.Properties["args"] = &jsonschema.Schema{Type: "object"}
	}
	if d := in.Properties["diagnostic"]; d != nil {
		// A finding as lspkit returned it, passed back whole: its fields
		// are the answer's, not the model's to learn here.
		in.Properties["diagnostic"] = &jsonschema.Schema{Type: "object", Description: d.Description}
	}
	// Unknown arguments are refused by name (knownArgs) rather than by the
	// schema: its additionalProperties: false costs every request tokens.
	asked := h // a batch's questions are decoded strictly (batchable)
	h = knownArgs(in, h)
	in.AdditionalProperties = nil
	meta := mcp.Meta{metaSearchHint: sp.searchHint}
	if sp.alwaysLoad {
		meta[metaAlwaysLoad] = true
	}
	t := &mcp.Tool{Name: sp.name, Title: sp.title, Description: sp.description, Annotations: ann, InputSchema: in, Meta: meta}
	if readOnly && ts.asks != nil && sp.name != "lsp_batch" {
		ts.asks[sp.name] = batchable(tool(asked))
	}
	if ts.structured {
		t.OutputSchema = schemaOf[Out]()
		mcp.AddTool(ts.server, t, tool(h))
		return
	}
	h = tool(h)
	mcp.AddTool(ts.server, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		res, _, err := h(ctx, req, in)
		return res, nil, err
	})
}

// mcpTools are the tools' handlers over the features; long renders
// their text in the long form (FormatLong).
// knownArgs refuses a call whose arguments name a property the input
// schema in does not have, saying which and what there is.
func knownArgs[In, Out any](in *jsonschema.Schema, h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	known := slices.Sorted(maps.Keys(in.Properties))
	return func(ctx context.Context, req *mcp.CallToolRequest, args In) (*mcp.CallToolResult, Out, error) {
		if req != nil && req.Params != nil && len(req.Params.Arguments) > 0 {
			var given map[string]json.RawMessage
			if json.Unmarshal(req.Params.Arguments, &given) == nil {
				for _, name := range slices.Sorted(maps.Keys(given)) {
					if !slices.Contains(known, name) {
						var zero Out
						return nil, zero, fmt.Errorf("unknown argument %q (this tool takes %s)", name, strings.Join(known, ", "))
					}
				}
			}
		}
		return h(ctx, req, args)
	}
}

// nonNullInputs gives an input property that may be null or one type
// (a Go pointer: given or not) that type alone: a model leaves it out
// rather than send null.
func nonNullInputs(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.AnyOf) == 2 && s.AnyOf[0].Type == "null" {
		s.Type, s.AnyOf = s.AnyOf[1].Type, nil
	}
	for _, p := range s.Properties {
		nonNullInputs(p)
	}
	nonNullInputs(s.Items)
}

type mcpTools struct {
	o    *features.Service
	long bool
}

// tool wraps a handler so that its errors reach the model as tool errors
// with the message alone: the orchestrator's *transport.Error carries the
// same message the JSON-RPC surface sends, its code is for programs. A
// session run with a caller's context (a shared daemon's client, see
// orchestrator.Attach) makes its calls as that caller, ended when it
// detaches.
func tool[In, Out any](h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		ctx, cancel := orchestrator.Join(ctx, ctx)
		defer cancel()
		res, out, err := h(ctx, req, in)
		if e, ok := errors.AsType[*transport.Error](err); ok {
			err = errors.New(e.Message)
		}
		return res, out, err
	}
}
