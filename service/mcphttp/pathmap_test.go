package mcphttp

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestParseMapping: CLIENT=DAEMON, both absolute (a Windows client's
// too); anything else refused with the reason.
func TestParseMapping(t *testing.T) {
	for in, want := range map[string]Mapping{
		"/Users/me/proj=/workspaces/proj":   {"/Users/me/proj", "/workspaces/proj"},
		"/Users/me/proj/=/workspaces/proj/": {"/Users/me/proj", "/workspaces/proj"},
		`C:\Users\me\proj=/workspaces/proj`: {`C:\Users\me\proj`, "/workspaces/proj"},
	} {
		if got, err := ParseMapping(in); err != nil || got != want {
			t.Errorf("%q: %+v %v, want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"/a", "rel=/b", "/a=rel", "=/b", "/a="} {
		if _, err := ParseMapping(in); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

// TestPathMap: a tool call's arguments reach the server with the
// daemon's paths (paths, file URIs, a Windows client's backslashes), and
// its answer, structured content and the server's instructions reach the
// client with the client's — a longer name that only begins like the
// daemon's prefix left alone — and so does the call's progress.
func TestPathMap(t *testing.T) {
	for _, tc := range []struct {
		name           string
		mapping        Mapping
		file, uri      string
		wantFile, root string
	}{
		{"unix", Mapping{"/Users/me/proj", "/ws/proj"}, "/Users/me/proj/src/a.go", "file:///Users/me/proj/src/a.go", "/Users/me/proj/src/a.go", "/Users/me/proj"},
		{"windows", Mapping{`C:\Users\me\proj`, "/ws/proj"}, `C:\Users\me\proj\src\a.go`, "file:///C:/Users/me/proj/src/a.go", "C:/Users/me/proj/src/a.go", "C:/Users/me/proj"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mcp.NewServer(&mcp.Implementation{Name: "test"}, &mcp.ServerOptions{Instructions: "the files of /ws/proj"})
			type in struct {
				File string   `json:"file"`
				URIs []string `json:"uris"`
			}
			var got in
			mcp.AddTool(s, &mcp.Tool{Name: "where"}, func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, map[string]any, error) {
				got = a
				if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Message: "checking /ws/proj/src/a.go", Progress: 1}); err != nil {
					t.Error(err)
				}
				text := "a.go:3: in /ws/proj/src/a.go (file:///ws/proj/src/a.go); not /ws/project/b.go; root /ws/proj."
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, map[string]any{"file": "/ws/proj/src/a.go"}, nil
			})
			s.AddReceivingMiddleware(PathMap([]Mapping{tc.mapping}))
			s.AddSendingMiddleware(PathMapSent([]Mapping{tc.mapping}))
			st, ct := mcp.NewInMemoryTransports()
			ctx := context.Background()
			go s.Run(ctx, st)
			progress := make(chan string, 1)
			c, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, &mcp.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { progress <- r.Params.Message },
			}).Connect(ctx, ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if ins := c.InitializeResult().Instructions; ins != "the files of "+tc.root {
				t.Errorf("instructions: %q", ins)
			}
			call := &mcp.CallToolParams{Name: "where", Arguments: map[string]any{"file": tc.file, "uris": []any{tc.uri, "/elsewhere/x.go"}}}
			call.SetProgressToken("p1")
			res, err := c.CallTool(ctx, call)
			if err != nil {
				t.Fatal(err)
			}
			if m := <-progress; m != "checking "+tc.wantFile {
				t.Errorf("progress: %q", m)
			}
			if got.File != "/ws/proj/src/a.go" || got.URIs[0] != "file:///ws/proj/src/a.go" || got.URIs[1] != "/elsewhere/x.go" {
				t.Errorf("the server got %+v", got)
			}
			want := "a.go:3: in " + tc.wantFile + " (file://" + map[bool]string{true: "/", false: ""}[tc.name == "windows"] + tc.wantFile + "); not /ws/project/b.go; root " + tc.root + "."
			if text := res.Content[0].(*mcp.TextContent).Text; text != want {
				t.Errorf("the client got %q\nwant %q", text, want)
			}
			if sc, _ := res.StructuredContent.(map[string]any); sc["file"] != tc.wantFile {
				t.Errorf("structured content: %+v", res.StructuredContent)
			}
		})
	}
}
