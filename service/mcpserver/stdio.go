package mcpserver

import (
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspkit/lspkit/service/mcpserver/jsonl"
)

// StdioTransport is MCP's stdio transport (newline-delimited JSON) over in
// and out, made robust for a session that must outlive a client's
// mistakes:
//
//   - a line that is not a JSON-RPC 2.0 message — not JSON (too deep, a
//     raw NUL, invalid UTF-8 included), a batch, jsonrpc other than "2.0",
//     an id that is not a string or an integer, or longer than
//     jsonl.MaxLineBytes — is answered with -32700 (parse error) or -32600
//     (invalid request) and "id": null unless its id could be read, and the
//     session goes on;
//   - errors the MCP SDK sends with code 0 get JSON-RPC's codes: -32601 for
//     a method it does not handle, -32600 for a request not valid before
//     initialization, -32603 otherwise;
//   - every request read before in ended is answered: the end of input
//     reaches the session only once each has its response written, so a
//     client that writes its last request and closes its side at once
//     still gets the answer.
func StdioTransport(in io.Reader, out io.Writer) mcp.Transport {
	r, w := jsonl.Stream(in, out)
	return &mcp.IOTransport{Reader: io.NopCloser(r), Writer: nopWriteCloser{w}}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
