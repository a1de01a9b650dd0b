package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspkit/lspkit/service/skills"
)

// addPrompts offers lspkit's Agent Skills as MCP prompts: the same texts
// lspkit init writes where hosts read skills, for hosts that read prompts
// instead (Claude Code lists them as slash commands).
func addPrompts(s *mcp.Server) {
	for _, sk := range skills.All() {
		body := sk.Body
		s.AddPrompt(&mcp.Prompt{Name: sk.Name, Description: sk.Description}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Description: sk.Description, Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: body}}}}, nil
		})
	}
}
