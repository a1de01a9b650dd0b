package mcphttp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Mapping is one prefix of a client's paths and the daemon's path it
// stands for (the host's /Users/me/proj, the container's
// /workspaces/proj).
type Mapping struct {
	Client, Daemon string
}

// ParseMapping reads CLIENT=DAEMON: two absolute paths (the client's may
// be a Windows one, C:\Users\me\proj).
func ParseMapping(s string) (Mapping, error) {
	client, daemon, ok := strings.Cut(s, "=")
	client, daemon = strings.TrimRight(client, `/\`), strings.TrimRight(daemon, "/")
	switch {
	case !ok || client == "" || daemon == "":
		return Mapping{}, fmt.Errorf("--path-map %q: want CLIENT=DAEMON, two absolute paths", s)
	case !strings.HasPrefix(daemon, "/"):
		return Mapping{}, fmt.Errorf("--path-map %q: the daemon's path %q is not absolute", s, daemon)
	case !strings.HasPrefix(client, "/") && !windowsAbs(client):
		return Mapping{}, fmt.Errorf("--path-map %q: the client's path %q is not absolute", s, client)
	}
	return Mapping{Client: client, Daemon: daemon}, nil
}

// windowsAbs says whether p is an absolute Windows path (C:\ or C:/).
func windowsAbs(p string) bool {
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z')
}

// PathMap rewrites the paths a client and the daemon exchange: in a tool
// call's arguments, every string that is a client path (or file URI)
// under a mapping's Client becomes the daemon's; in every answer — tool
// results' texts and structured content, the server's instructions —
// every daemon path (and file URI) under a mapping's Daemon becomes the
// client's. A path under no mapping passes as it is, and the daemon
// refuses it as outside its root as it would anyway.
func PathMap(maps []Mapping) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if call, ok := req.(*mcp.CallToolRequest); ok && len(call.Params.Arguments) > 0 {
				var args any
				if err := json.Unmarshal(call.Params.Arguments, &args); err == nil {
					if raw, err := json.Marshal(walk(args, func(s string) string { return toDaemon(maps, s) })); err == nil {
						call.Params.Arguments = raw
					}
				}
			}
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err // a protocol error, its code kept (a tool's error is a result, rewritten below)
			}
			switch r := res.(type) {
			case *mcp.CallToolResult:
				for _, c := range r.Content {
					if t, ok := c.(*mcp.TextContent); ok {
						t.Text = toClientText(maps, t.Text)
					}
				}
				if r.StructuredContent != nil {
					if raw, err := json.Marshal(r.StructuredContent); err == nil {
						var v any
						if json.Unmarshal(raw, &v) == nil {
							r.StructuredContent = walk(v, func(s string) string { return toClientText(maps, s) })
						}
					}
				}
			case *mcp.InitializeResult:
				r.Instructions = toClientText(maps, r.Instructions)
			case *mcp.DiscoverResult: // the 2026-07-28 protocol's handshake
				r.Instructions = toClientText(maps, r.Instructions)
			}
			return res, err
		}
	}
}

// PathMapSent rewrites what the daemon sends the client unasked, as
// PathMap does its answers: a progress notification's message names
// files with the client's paths.
func PathMapSent(maps []Mapping) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			// The SDK sends it as a request of Params, not of
			// *ProgressNotificationParams: the params tell.
			if p, ok := req.GetParams().(*mcp.ProgressNotificationParams); ok && p != nil {
				p.Message = toClientText(maps, p.Message)
			}
			return next(ctx, method, req)
		}
	}
}

// walk is v with f applied to every string in it (keys left alone).
func walk(v any, f func(string) string) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case []any:
		for i := range x {
			x[i] = walk(x[i], f)
		}
	case map[string]any:
		for k := range x {
			x[k] = walk(x[k], f)
		}
	}
	return v
}

// toDaemon is s, a client's path or file URI, as the daemon's, if a
// mapping's Client holds it; else s.
func toDaemon(maps []Mapping, s string) string {
	for _, m := range maps {
		if rest, ok := under(s, m.Client); ok {
			return m.Daemon + strings.ReplaceAll(rest, `\`, "/")
		}
		if u, err := url.Parse(s); err == nil && u.Scheme == "file" {
			p := strings.TrimPrefix(u.Path, "/")
			if !windowsAbs(p) {
				p = u.Path
			}
			if rest, ok := under(p, m.Client); ok {
				return (&url.URL{Scheme: "file", Path: path.Clean(m.Daemon + strings.ReplaceAll(rest, `\`, "/"))}).String()
			}
		}
	}
	return s
}

// under says whether p is prefix or below it, and what follows the
// prefix ("" or a separator first). A Windows prefix is matched without
// case and with either separator.
func under(p, prefix string) (string, bool) {
	if len(p) < len(prefix) {
		return "", false
	}
	head, rest := p[:len(prefix)], p[len(prefix):]
	same := head == prefix
	if windowsAbs(prefix) {
		same = strings.EqualFold(strings.ReplaceAll(head, `\`, "/"), strings.ReplaceAll(prefix, `\`, "/"))
	}
	if !same || rest != "" && rest[0] != '/' && rest[0] != '\\' {
		return "", false
	}
	return rest, true
}

// toClientText is text with every daemon path (and file URI) under a
// mapping's Daemon written as the client's: answers name files in prose,
// lists and diffs alike.
func toClientText(maps []Mapping, text string) string {
	for _, m := range maps {
		client := m.Client
		if windowsAbs(client) {
			client = strings.ReplaceAll(client, `\`, "/")
		}
		clientURI := (&url.URL{Scheme: "file", Path: client}).String()
		if windowsAbs(client) {
			clientURI = (&url.URL{Scheme: "file", Path: "/" + client}).String()
		}
		text = replaceUnder(text, (&url.URL{Scheme: "file", Path: m.Daemon}).String(), clientURI)
		text = replaceUnder(text, m.Daemon, client)
	}
	return text
}

// replaceUnder replaces prefix with repl wherever it begins a path:
// followed by a separator or by the end of a word, not by more of a name
// (/workspaces/proj is not /workspaces/project).
func replaceUnder(text, prefix, repl string) string {
	var b strings.Builder
	for {
		i := strings.Index(text, prefix)
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		end := i + len(prefix)
		b.WriteString(text[:i])
		if end == len(text) || !nameByte(text[end]) {
			b.WriteString(repl)
		} else {
			b.WriteString(prefix)
		}
		text = text[end:]
	}
}

// nameByte says whether c continues a file name ('.' does not: it ends
// a sentence far more often than it begins /workspaces/proj.old).
func nameByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z' || c >= 0x80
}
