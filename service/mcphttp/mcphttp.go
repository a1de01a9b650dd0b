// Package mcphttp serves lspkit's MCP server over streamable HTTP (the
// official SDK's handler) to clients that are not its children — another
// container, another machine, a host that only speaks HTTP — and to no one
// else: every request but the health check carries the bearer token;
// a browser's foreign Origin, a Host that is not this machine's (DNS
// rebinding), a body over the limit and a session past the bound are
// refused, each with its status; no OAuth discovery is advertised.
package mcphttp

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The paths it serves.
const (
	PathMCP    = "/mcp"     // streamable HTTP
	PathHealth = "/healthz" // 200 "ok", without a token
)

// Defaults of Options' bounds.
const (
	DefaultMaxBodyBytes = 4 << 20
	DefaultMaxSessions  = 16
	DefaultSessionIdle  = 30 * time.Minute
	// RetryAfter is what a client past the session bound is told to wait,
	// in seconds.
	RetryAfter = 5
)

// Options configures Handler.
type Options struct {
	// Token is the bearer token every request but the health check must
	// carry ("Authorization: Bearer TOKEN"); compared in constant time.
	// Required: Handler refuses to serve without one.
	Token string
	// AllowOrigins are the Origin header values a browser's request may
	// carry (scheme://host[:port], compared without case); a request with
	// any other Origin is refused with 403. Requests without an Origin
	// (every host's MCP client) are not concerned.
	AllowOrigins []string
	// AllowHosts are Host header names accepted besides localhost and IP
	// literals: the name a reverse proxy forwards with. Any other name is
	// refused with 421, which defeats DNS rebinding.
	AllowHosts []string
	// MaxBodyBytes bounds a request's body (DefaultMaxBodyBytes when 0):
	// past it, 413.
	MaxBodyBytes int64
	// MaxSessions bounds the sessions open at once (DefaultMaxSessions
	// when 0): a new one past it gets 503 with Retry-After.
	MaxSessions int
	// SessionIdle ends a session without a request for that long
	// (DefaultSessionIdle when 0).
	SessionIdle time.Duration
	// Logger logs refusals at debug level and the SDK's errors (nil: none).
	Logger *slog.Logger
}

// Handler serves server at PathMCP and a health check at PathHealth,
// guarded as Options says; every other path is 404, /.well-known/* (OAuth
// discovery) included.
func Handler(server *mcp.Server, o Options) (http.Handler, error) {
	if o.Token == "" {
		return nil, fmt.Errorf("mcphttp: no token: every request must carry one")
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.SessionIdle <= 0 {
		o.SessionIdle = DefaultSessionIdle
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{
		Logger:              o.Logger,
		SessionTimeout:      o.SessionIdle,
		MaxRequestBodyBytes: o.MaxBodyBytes,
		// The SDK's own guard refuses any Host but localhost on a loopback
		// connection, which a reverse proxy's name must pass: guard checks
		// the Host itself, that name allowed.
		DisableLocalhostProtection: len(o.AllowHosts) > 0,
	})
	want := sha256.Sum256([]byte(o.Token))
	g := &guard{o: o, sdk: sdk, server: server, token: want, open: map[string]bool{}}
	return g, nil
}

// guard is the handler: the checks, then the SDK's handler.
type guard struct {
	o      Options
	sdk    http.Handler
	server *mcp.Server
	token  [sha256.Size]byte

	mu       sync.Mutex
	starting int             // requests that may open a session, not yet answered
	open     map[string]bool // the sessions opened here (their answers named them), until ended
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.HasPrefix(r.URL.Path, "/.well-known/"):
		// No OAuth discovery: a host that finds one drops the headers it
		// was configured with (Claude Code, Cursor).
		http.NotFound(w, r)
		return
	case !g.hostAllowed(r.Host):
		g.refuse(w, r, http.StatusMisdirectedRequest, "Host "+strconv.Quote(r.Host)+" is not this server's (start it with --allow-host for a proxy's name)")
		return
	case !g.originAllowed(r.Header.Values("Origin")):
		g.refuse(w, r, http.StatusForbidden, "Origin "+strconv.Quote(r.Header.Get("Origin"))+" is not allowed (start it with --allow-origin)")
		return
	case r.URL.Path == PathHealth:
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
		return
	case r.URL.Path != PathMCP:
		http.NotFound(w, r)
		return
	case !g.authorized(r.Header.Get("Authorization")):
		w.Header().Set("WWW-Authenticate", `Bearer realm="lspkit"`)
		g.refuse(w, r, http.StatusUnauthorized, "missing or wrong bearer token")
		return
	case r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "":
		if !g.admit() {
			w.Header().Set("Retry-After", strconv.Itoa(RetryAfter))
			g.refuse(w, r, http.StatusServiceUnavailable, fmt.Sprintf("%d sessions are open, the most this server takes", g.o.MaxSessions))
			return
		}
		// The session is the server's once the answer's headers go out
		// (the SDK connects it first); the answer itself may stream on.
		aw := &admittedWriter{ResponseWriter: w, done: g.admitted}
		defer aw.once()
		w = aw
	case r.Method == http.MethodDelete && r.Header.Get("Mcp-Session-Id") != "":
		// The SDK answers once the session is closed, but drops it from
		// the server's list after: it no longer counts from now.
		g.mu.Lock()
		delete(g.open, r.Header.Get("Mcp-Session-Id"))
		g.mu.Unlock()
	}
	g.sdk.ServeHTTP(w, r)
}

// admit counts a request that may open a session, unless the open
// sessions and those being opened have reached the bound.
func (g *guard) admit() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.sessions()+g.starting >= g.o.MaxSessions {
		return false
	}
	g.starting++
	return true
}

// admitted ends admit's count: the session the answer names, if it
// opened one (an initialize; a draft server/discover opens none), counts
// from now.
func (g *guard) admitted(session string) {
	g.mu.Lock()
	g.starting--
	if session != "" {
		g.open[session] = true
	}
	g.mu.Unlock()
}

// refuse answers status with the reason, in plain text.
func (g *guard) refuse(w http.ResponseWriter, r *http.Request, status int, reason string) {
	g.o.Logger.Debug("http request refused", "status", status, "method", r.Method, "path", r.URL.Path, "remote", r.RemoteAddr, "reason", reason)
	http.Error(w, "lspkit: "+reason, status)
}

// authorized compares the bearer token in constant time: both sides
// hashed first, so that neither the token's length nor its bytes leak.
func (g *guard) authorized(header string) bool {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(token)))
	return subtle.ConstantTimeCompare(got[:], g.token[:]) == 1
}

// hostAllowed: localhost, an IP literal, or a name of AllowHosts.
func (g *guard) hostAllowed(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if strings.EqualFold(host, "localhost") || net.ParseIP(host) != nil {
		return true
	}
	for _, h := range g.o.AllowHosts {
		if strings.EqualFold(host, h) {
			return true
		}
	}
	return false
}

// originAllowed: no Origin, or one of AllowOrigins.
func (g *guard) originAllowed(origins []string) bool {
	for _, origin := range origins {
		ok := false
		for _, a := range g.o.AllowOrigins {
			if strings.EqualFold(strings.TrimSuffix(origin, "/"), strings.TrimSuffix(a, "/")) {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// sessions counts the sessions opened here that are still open: not
// ended by a DELETE, and still the server's (one idle too long is
// closed by the SDK). g.mu is held.
func (g *guard) sessions() int {
	listed := map[string]bool{}
	for s := range g.server.Sessions() {
		listed[s.ID()] = true
	}
	for id := range g.open {
		if !listed[id] {
			delete(g.open, id)
		}
	}
	return len(g.open)
}

// NewServer is the HTTP server for h: header reads bounded
// (readHeaderTimeout, 10 s when 0), so that a client that sends its
// headers slowly is closed; idle connections closed after two minutes;
// headers at most 64 KiB.
func NewServer(h http.Handler, readHeaderTimeout time.Duration) *http.Server {
	if readHeaderTimeout <= 0 {
		readHeaderTimeout = 10 * time.Second
	}
	return &http.Server{Handler: h, ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
}

// admittedWriter calls done once, with the session the answer names,
// when the answer's headers are written (or the handler returns without
// writing any).
type admittedWriter struct {
	http.ResponseWriter
	done   func(session string)
	called sync.Once
}

func (w *admittedWriter) once() {
	w.called.Do(func() { w.done(w.Header().Get("Mcp-Session-Id")) })
}

func (w *admittedWriter) WriteHeader(status int) {
	w.ResponseWriter.WriteHeader(status)
	w.once()
}

func (w *admittedWriter) Write(b []byte) (int, error) {
	w.once()
	return w.ResponseWriter.Write(b)
}

// Flush and Unwrap keep what the SDK's streaming needs of the writer.
func (w *admittedWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *admittedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
