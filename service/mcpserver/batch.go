package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspkit/lspkit/service/batch"
)

// asker asks one tool of a batch with its arguments as JSON.
type asker func(ctx context.Context, req *mcp.CallToolRequest, args json.RawMessage) (*mcp.CallToolResult, error)

// batchable is how add makes a read-only tool askable in a batch: its
// arguments decoded strictly into its input type.
func batchable[In, Out any](h mcp.ToolHandlerFor[In, Out]) asker {
	return func(ctx context.Context, req *mcp.CallToolRequest, args json.RawMessage) (*mcp.CallToolResult, error) {
		var in In
		if len(bytes.TrimSpace(args)) > 0 {
			dec := json.NewDecoder(bytes.NewReader(args))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&in); err != nil {
				return nil, fmt.Errorf("args: %w", err)
			}
		}
		res, _, err := h(ctx, req, in)
		return res, err
	}
}

// BatchInput is lsp_batch's input.
type BatchInput struct {
	Questions []BatchQuestion `json:"questions" jsonschema:"1 to 20"`
}

// BatchQuestion is one question of lsp_batch.
type BatchQuestion struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args" jsonschema:"its arguments"`
}

// BatchOutput is lsp_batch's answer.
type BatchOutput struct {
	Answers []BatchAnswer `json:"answers" jsonschema:"one per question, in order"`
}

// BatchAnswer is one question's answer: the tool's text, or its error.
type BatchAnswer struct {
	Tool  string `json:"tool"`
	Text  string `json:"text,omitempty"`
	Error string `json:"error,omitempty"`
}

// batch answers lsp_batch: each question by its tool, concurrently.
func (m *mcpTools) batch(asks map[string]asker) mcp.ToolHandlerFor[BatchInput, BatchOutput] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in BatchInput) (*mcp.CallToolResult, BatchOutput, error) {
		answers, err := batch.Run(ctx, in.Questions, func(ctx context.Context, q BatchQuestion) (any, error) {
			ask, ok := asks[q.Tool]
			if !ok {
				return nil, fmt.Errorf("%q cannot be asked in a batch; these can: %s", q.Tool, strings.Join(slices.Sorted(maps.Keys(asks)), ", "))
			}
			res, err := ask(ctx, req, q.Args)
			if err != nil {
				return nil, err
			}
			return textOf(res), nil
		})
		if err != nil {
			return nil, BatchOutput{}, err
		}
		out := BatchOutput{Answers: make([]BatchAnswer, len(answers))}
		var b strings.Builder
		for i, a := range answers {
			ba := BatchAnswer{Tool: in.Questions[i].Tool}
			if a.Error != nil {
				ba.Error = a.Error.Message
			} else {
				ba.Text, _ = a.Result.(string)
			}
			out.Answers[i] = ba
			fmt.Fprintf(&b, "[%d] %s %s\n", i+1, ba.Tool, compactArgs(in.Questions[i].Args))
			if ba.Error != "" {
				b.WriteString("error: " + ba.Error + "\n")
			} else {
				b.WriteString(strings.TrimRight(ba.Text, "\n") + "\n")
			}
		}
		return text(b.String()), out, nil
	}
}

// textOf is a tool result's text.
func textOf(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// compactArgs is a question's arguments on one line, for its heading.
func compactArgs(args json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, args) != nil {
		return ""
	}
	return b.String()
}
