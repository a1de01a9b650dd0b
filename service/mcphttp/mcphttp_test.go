package mcphttp

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspkit/lspkit/internal/servertest"
)

const token = "s3cret-token-for-tests"

// echoServer is an MCP server with one tool, echo.
func echoServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echoes text"}, func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	return s
}

// serve starts Handler over echoServer with o (its token set) on
// loopback.
func serve(t *testing.T, o Options) *httptest.Server {
	t.Helper()
	return serveServer(t, echoServer(), o)
}

// serveServer is serve with server s.
func serveServer(t *testing.T, s *mcp.Server, o Options) *httptest.Server {
	t.Helper()
	if o.Token == "" {
		o.Token = token
	}
	h, err := Handler(s, o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(h)
	ts.Config = NewServer(h, 0)
	ts.Start()
	t.Cleanup(ts.Close)
	return ts
}

// connect opens an MCP session with the token given.
func connect(t *testing.T, url, tok string) (*mcp.ClientSession, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	transport := &mcp.StreamableClientTransport{Endpoint: url + PathMCP, HTTPClient: &http.Client{Transport: bearer{tok, http.DefaultTransport}}}
	return mcp.NewClient(&mcp.Implementation{Name: "client"}, nil).Connect(ctx, transport, nil)
}

// post sends an initialize request by hand with headers and returns the
// response.
func post(t *testing.T, url string, header map[string]string, body string) *http.Response {
	t.Helper()
	if body == "" {
		body = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	}
	req, err := http.NewRequest(http.MethodPost, url+PathMCP, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

// TestToken: the token opens a session whose tools answer; no token and a
// wrong one get 401 (with a Bearer challenge and no OAuth discovery), the
// health check needs none, and a handler without a token is refused.
func TestToken(t *testing.T) {
	ts := serve(t, Options{})
	s, err := connect(t, ts.URL, token)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "hi" {
		t.Fatalf("echo: %+v %v", res, err)
	}
	s.Close()
	for name, header := range map[string]map[string]string{
		"no token":    nil,
		"wrong token": {"Authorization": "Bearer " + token + "x"},
		"a prefix":    {"Authorization": "Bearer " + token[:5]},
		"basic":       {"Authorization": "Basic " + token},
	} {
		if r := post(t, ts.URL, header, ""); r.StatusCode != http.StatusUnauthorized || r.Header.Get("WWW-Authenticate") != `Bearer realm="lspkit"` {
			t.Errorf("%s: %d %v, want 401 with a Bearer challenge", name, r.StatusCode, r.Header)
		}
	}
	if _, err := connect(t, ts.URL, "wrong"); err == nil {
		t.Error("a client with the wrong token connected")
	}
	for path, want := range map[string]int{PathHealth: 200, "/.well-known/oauth-protected-resource": 404, "/.well-known/oauth-authorization-server": 404, "/other": 404} {
		res, err := http.Get(ts.URL + path)
		if err != nil || res.StatusCode != want {
			t.Errorf("GET %s: %v %v, want %d", path, res.StatusCode, err, want)
		}
	}
	if _, err := Handler(echoServer(), Options{}); err == nil {
		t.Error("a handler without a token")
	}
}

// TestRefusals: a browser's foreign Origin (403), a Host that is not this
// machine's (421, unless allowed), a body over the limit (413), and a
// session past the bound (503 with Retry-After, until one ends).
func TestRefusals(t *testing.T) {
	ts := serve(t, Options{AllowOrigins: []string{"https://ok.example"}, AllowHosts: []string{"proxy.example"}, MaxBodyBytes: 4096})
	auth := "Bearer " + token
	for _, tc := range []struct {
		name   string
		header map[string]string
		body   string
		want   int
	}{
		{"a foreign Origin", map[string]string{"Authorization": auth, "Origin": "https://evil.example"}, "", http.StatusForbidden},
		{"a foreign Origin, no token", map[string]string{"Origin": "https://evil.example"}, "", http.StatusForbidden},
		{"an allowed Origin", map[string]string{"Authorization": auth, "Origin": "https://ok.example"}, "", http.StatusOK},
		{"a rebinding Host", map[string]string{"Authorization": auth, "Host": "evil.example:8080"}, "", http.StatusMisdirectedRequest},
		{"the proxy's Host", map[string]string{"Authorization": auth, "Host": "proxy.example"}, "", http.StatusOK},
		{"localhost", map[string]string{"Authorization": auth, "Host": "localhost"}, "", http.StatusOK},
		{"a body over the limit", map[string]string{"Authorization": auth},
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"` + strings.Repeat("x", 5000) + `"}}`, http.StatusRequestEntityTooLarge},
	} {
		if r := post(t, ts.URL, tc.header, tc.body); r.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, r.StatusCode, tc.want)
		}
	}

	// The initializes above opened sessions of their own, now idle: a
	// server of its own for the bound.
	ts = serve(t, Options{MaxSessions: 2})
	var open []*mcp.ClientSession
	for range 2 {
		s, err := connect(t, ts.URL, token)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() }) // before the server's close, which waits for their streams
		open = append(open, s)
	}
	r := post(t, ts.URL, map[string]string{"Authorization": auth}, "")
	if r.StatusCode != http.StatusServiceUnavailable || r.Header.Get("Retry-After") != "5" {
		t.Fatalf("a third session: %d %v, want 503 with Retry-After", r.StatusCode, r.Header)
	}
	// A request of an open session is not a new one.
	if _, err := open[0].ListTools(context.Background(), nil); err != nil {
		t.Fatalf("an open session past the bound: %v", err)
	}
	open[1].Close() // DELETE ends it at the server
	s, err := connect(t, ts.URL, token)
	if err != nil {
		t.Fatalf("after a session ended: %v", err)
	}
	s.Close()
}

// TestSlowHeaders: a client that sends part of its headers and stops is
// closed once the header timeout passes, with no answer.
func TestSlowHeaders(t *testing.T) {
	h, err := Handler(echoServer(), Options{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(h)
	ts.Config = NewServer(h, 200*time.Millisecond)
	ts.Start()
	defer ts.Close()
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token + "\r\n")); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(time.Minute)) // a bound on the test, not the verdict: the server closes long before
	line, err := bufio.NewReader(conn).ReadString('\n')
	if !errors.Is(err, io.EOF) && !strings.HasPrefix(line, "HTTP/1.1 408") {
		t.Fatalf("after half the headers: %q %v, want the connection closed", line, err)
	}
}

// BenchmarkToolCall: a warm tool call (echo) over HTTP on loopback with
// the token, through Connect's relay (a pipe, then HTTP), and over a pipe
// alone (the stdio transport's path): what HTTP, and the relay, add to
// each call.
func BenchmarkToolCall(b *testing.B) {
	call := func(b *testing.B, s *mcp.ClientSession) {
		ctx := context.Background()
		params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}
		for b.Loop() {
			if _, err := s.CallTool(ctx, params); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("http", func(b *testing.B) {
		h, _ := Handler(echoServer(), Options{Token: token})
		ts := httptest.NewServer(h)
		defer ts.Close()
		transport := &mcp.StreamableClientTransport{Endpoint: ts.URL + PathMCP, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}
		s, err := mcp.NewClient(&mcp.Implementation{Name: "client"}, nil).Connect(context.Background(), transport, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		call(b, s)
	})
	b.Run("connect", func(b *testing.B) { // a host on a pipe to Connect's relay, and on over HTTP
		h, _ := Handler(echoServer(), Options{Token: token})
		ts := httptest.NewServer(h)
		defer ts.Close()
		r, err := Connect(context.Background(), ts.URL+PathMCP, token, "bench")
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close()
		sr, cw := io.Pipe()
		cr, sw := io.Pipe()
		go r.Server().Run(context.Background(), &mcp.IOTransport{Reader: sr, Writer: sw})
		s, err := mcp.NewClient(&mcp.Implementation{Name: "client"}, nil).Connect(context.Background(), &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		call(b, s)
	})
	b.Run("pipe", func(b *testing.B) {
		sr, cw := io.Pipe()
		cr, sw := io.Pipe()
		go echoServer().Run(context.Background(), &mcp.IOTransport{Reader: sr, Writer: sw})
		s, err := mcp.NewClient(&mcp.Implementation{Name: "client"}, nil).Connect(context.Background(), &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		call(b, s)
	})
}

// BenchmarkTokenCheck: the bearer token's constant-time check.
func BenchmarkTokenCheck(b *testing.B) {
	h, _ := Handler(echoServer(), Options{Token: token})
	g := h.(*guard)
	for b.Loop() {
		if !g.authorized("Bearer " + token) {
			b.Fatal("refused")
		}
	}
}

// TestConnect: Connect's server offers the remote's tools, each call
// relayed with its result as the remote gave it; a wrong token is an
// error at once.
func TestConnect(t *testing.T) {
	// A long call, which reports its progress and answers once the host
	// has seen it.
	seen := make(chan struct{}, 1)
	remote := echoServer()
	mcp.AddTool(remote, &mcp.Tool{Name: "long", Description: "reports progress"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: 1, Total: 2, Message: "half done"}); err != nil {
			return nil, nil, err
		}
		select {
		case <-seen:
		case <-time.After(servertest.Scale(10 * time.Second)):
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	ts := serveServer(t, remote, Options{})
	ctx := context.Background()
	r, err := Connect(ctx, ts.URL+PathMCP, token, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	st, ct := mcp.NewInMemoryTransports()
	go r.Server().Run(ctx, st)
	progress := make(chan *mcp.ProgressNotificationParams, 1)
	s, err := mcp.NewClient(&mcp.Implementation{Name: "host"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			progress <- r.Params
			seen <- struct{}{}
		},
	}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools, err := s.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 2 || tools.Tools[0].Name != "echo" || tools.Tools[0].Description != "echoes text" {
		t.Fatalf("tools through the relay: %+v %v", tools, err)
	}
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "through"}})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "through" {
		t.Fatalf("echo through the relay: %+v %v", res, err)
	}
	// A call with a progress token gets the remote's progress while it
	// runs.
	call := &mcp.CallToolParams{Name: "long"}
	call.SetProgressToken("host-1")
	if res, err := s.CallTool(ctx, call); err != nil || res.Content[0].(*mcp.TextContent).Text != "done" {
		t.Fatalf("long call through the relay: %+v %v", res, err)
	}
	select {
	case p := <-progress:
		if p.ProgressToken != "host-1" || p.Message != "half done" || p.Progress != 1 || p.Total != 2 {
			t.Errorf("progress through the relay: %+v", p)
		}
	default:
		t.Error("no progress through the relay while the call ran")
	}
	if _, err := Connect(ctx, ts.URL+PathMCP, "wrong", "test"); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("a wrong token: %v", err)
	}
}
