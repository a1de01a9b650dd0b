package client

import (
	"context"
	"fmt"

	"github.com/lspkit/lspkit/protocol"
)

// Forward sends the request t to c's server as it is given and returns its
// answer as the server gave it: for a front end that passes a client's
// requests through (lspkit lsp). The server's error answers are returned
// as they came (a *transport.Error keeps their code).
func Forward[P, R any](ctx context.Context, c *Client, t protocol.RequestType[P, R], params P) (R, error) {
	c.inputChanged() // a request passed through may change anything (a command)
	r, err := t.Call(ctx, c.conn, params)
	if err != nil {
		return r, fmt.Errorf("client: %s: %s: %w", c.cfg.Name, t.Method(), err)
	}
	return r, nil
}
