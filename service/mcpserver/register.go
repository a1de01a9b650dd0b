package mcpserver

import (
	"context"
	"errors"

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

// add registers a tool with its title, annotations and input schema
// (and output schema when structured), inferred from the Go types, with
// concrete types for every property.
func add[In, Out any](ts toolSet, name, title, description string, readOnly bool, h mcp.ToolHandlerFor[In, Out]) {
	ann := &mcp.ToolAnnotations{Title: title, ReadOnlyHint: readOnly, OpenWorldHint: new(false)}
	if !readOnly {
		ann.DestructiveHint = new(true) // it overwrites files
	} else {
		ann.IdempotentHint = true
	}
	in := schemaOf[In]()
	if name == "lsp_batch" {
		// A question's args are any tool's: an object.
		in.Properties["questions"].Items.Properties["args"] = &jsonschema.Schema{Type: "object"}
	}
	t := &mcp.Tool{Name: name, Title: title, Description: description, Annotations: ann, InputSchema: in}
	if readOnly && ts.asks != nil && name != "lsp_batch" {
		ts.asks[name] = batchable(tool(h))
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

type mcpTools struct{ o *features.Service }

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
