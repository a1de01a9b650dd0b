package mcphttp

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Remote is an MCP session with a remote lspkit (`lspkit mcp --http`),
// offered as a server of the same tools: for a host that speaks only stdio
// or cannot send headers (`lspkit mcp --connect URL`).
type Remote struct {
	session *mcp.ClientSession
	server  *mcp.Server

	mu sync.Mutex
	// calls are the host's sessions of the calls in flight that asked for
	// progress, by their token (the remote's progress is theirs).
	calls map[string]*mcp.ServerSession
}

// Connect opens a session with the MCP endpoint url (…/mcp), every request
// carrying token as a bearer token, and returns it with a server that
// offers the remote's tools — each call relayed, its result as the remote
// gave it, and its progress, when the host asked for it, relayed to the
// host — and its instructions.
func Connect(ctx context.Context, url, token, version string) (*Remote, error) {
	r := &Remote{calls: map[string]*mcp.ServerSession{}}
	transport := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token: token, base: http.DefaultTransport}}}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "lspkit-connect", Version: version}, &mcp.ClientOptions{ProgressNotificationHandler: r.progress}).Connect(ctx, transport, nil)
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
			call := &mcp.CallToolParams{Name: req.Params.Name, Arguments: req.Params.Arguments}
			// The host's token goes to the remote as it is: this relay
			// serves one host session, whose tokens are unique among its
			// calls in flight.
			if tok := req.Params.GetProgressToken(); tok != nil {
				key := progressKey(tok)
				r.mu.Lock()
				r.calls[key] = req.Session
				r.mu.Unlock()
				defer func() {
					r.mu.Lock()
					delete(r.calls, key)
					r.mu.Unlock()
				}()
				call.SetProgressToken(tok)
			}
			res, err := session.CallTool(ctx, call)
			if err != nil {
				return nil, fmt.Errorf("the remote lspkit at %s: %w", url, err)
			}
			return res, nil
		})
	}
	r.session, r.server = session, server
	return r, nil
}

// progress relays the remote's progress notification to the host session
// whose call it belongs to; one for a call no longer in flight is dropped.
func (r *Remote) progress(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
	if req.Params == nil {
		return
	}
	r.mu.Lock()
	host := r.calls[progressKey(req.Params.ProgressToken)]
	r.mu.Unlock()
	if host != nil {
		// Progress is a courtesy: a host that cannot take it still gets
		// the answer.
		_ = host.NotifyProgress(ctx, req.Params)
	}
}

// progressKey is a progress token as a key: a string and a number of the
// same digits are different tokens.
func progressKey(tok any) string { return fmt.Sprintf("%T:%v", tok, tok) }

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
