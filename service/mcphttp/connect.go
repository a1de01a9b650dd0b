package mcphttp

import (
	"context"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Remote is an MCP session with a remote lspkit (`lspkit mcp --http`),
// offered as a server of the same tools: for a host that speaks only stdio
// or cannot send headers (`lspkit mcp --connect URL`).
type Remote struct {
	session *mcp.ClientSession
	server  *mcp.Server
}

// Connect opens a session with the MCP endpoint url (…/mcp), every request
// carrying token as a bearer token, and returns it with a server that
// offers the remote's tools — each call relayed, its result as the remote
// gave it — and its instructions.
func Connect(ctx context.Context, url, token, version string) (*Remote, error) {
	transport := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token: token, base: http.DefaultTransport}}}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "lspkit-connect", Version: version}, nil).Connect(ctx, transport, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	init := session.InitializeResult()
	name := "lspkit"
	if init != nil && init.ServerInfo != nil && init.ServerInfo.Name != "" {
		name = init.ServerInfo.Name
	}
	opts := &mcp.ServerOptions{}
	if init != nil {
		opts.Instructions = init.Instructions
	}
	server := mcp.NewServer(&mcp.Implementation{Name: name, Version: version}, opts)
	for tool, err := range session.Tools(ctx, nil) {
		if err != nil {
			session.Close()
			return nil, fmt.Errorf("%s: tools/list: %w", url, err)
		}
		server.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: req.Params.Name, Arguments: req.Params.Arguments})
			if err != nil {
				return nil, fmt.Errorf("the remote lspkit at %s: %w", url, err)
			}
			return res, nil
		})
	}
	return &Remote{session: session, server: server}, nil
}

// Server is the server that offers the remote's tools.
func (r *Remote) Server() *mcp.Server { return r.server }

// Close ends the session with the remote.
func (r *Remote) Close() error { return r.session.Close() }

// bearer adds the bearer token to every request.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}
