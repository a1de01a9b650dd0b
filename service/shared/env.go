package shared

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Which of a client's variables matter to the servers: those that change
// what a language server does or where it and its tools are found, named
// one by one — a prefix such as GO would take GOOGLE_API_KEY along, and
// NPM_CONFIG_ holds registry tokens. The rest of a client's environment
// is its own business. Notes name variables, never their values (a
// GOPROXY may carry credentials).
var serverVarNames = []string{
	"PATH", "CGO_ENABLED", "CC", "CXX", "CGO_CFLAGS", "CGO_LDFLAGS", "PKG_CONFIG_PATH",
	// Go's
	"GOPATH", "GOROOT", "GOBIN", "GOFLAGS", "GOPROXY", "GOPRIVATE", "GONOPROXY", "GONOSUMDB", "GOSUMDB", "GOINSECURE",
	"GOMODCACHE", "GOCACHE", "GOWORK", "GOTOOLCHAIN", "GOENV", "GO111MODULE", "GOOS", "GOARCH", "GOEXPERIMENT", "GODEBUG",
	"GOVCS", "GOPACKAGESDRIVER", "GOAMD64", "GOARM", "GOARM64",
	// Python's, Node's, Java's, Rust's
	"VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONPATH", "PYTHONHOME", "NODE_OPTIONS", "NODE_PATH", "NODE_EXTRA_CA_CERTS",
	"JAVA_HOME", "CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN",
	"XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
	// lspkit's own that decide how the daemon runs servers: read at its
	// start, so only ever said, never taken.
	"LSPKIT_SERVERS", "LSPKIT_ORPHAN_GUARD",
}

// ServerVars picks out of environ (KEY=VALUE entries) the variables that
// matter to language servers.
func ServerVars(environ []string) map[string]string {
	out := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		if slices.Contains(serverVarNames, k) {
			out[k] = v
		}
	}
	return out
}

// ServerEnv is the environment a shared daemon's servers start with. The
// daemon runs in whatever environment its first client had — a host may
// have passed it only a few variables (Codex passes HOME, PATH, TMPDIR,
// LANG, SHELL and TERM) — so each client that attaches completes it: a
// variable the daemon lacks is taken from the first client that has it,
// for the servers started from then on, and a PATH's directories the
// daemon's lacks are appended to it. A variable the daemon has with
// another value is not changed under the other clients: the client is
// told (Join's notes), never silently served otherwise.
type ServerEnv struct {
	mu      sync.Mutex
	own     map[string]string // the daemon's own, at its start
	adopted map[string]string // taken from clients
}

// NewServerEnv starts from the daemon's own environment.
func NewServerEnv(environ []string) *ServerEnv {
	return &ServerEnv{own: ServerVars(environ), adopted: map[string]string{}}
}

// Join takes in a client's server variables and returns what that client
// should be told: each variable the servers run with that differs from
// the client's.
func (e *ServerEnv) Join(client map[string]string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var notes []string
	for _, k := range slices.Sorted(maps.Keys(client)) {
		v := client[k]
		cur, has := e.own[k]
		if a, ok := e.adopted[k]; ok {
			cur, has = a, true
		}
		switch {
		case strings.HasPrefix(k, "LSPKIT_"):
			// lspkit's own: read by the daemon at its start, not the servers'.
			if !has || cur != v {
				notes = append(notes, fmt.Sprintf("the shared daemon was started without this session's %s: it keeps its own", k))
			}
		case k == "PATH":
			merged := mergePath(cur, v)
			if merged != cur {
				e.adopted[k] = merged
			}
		case !has:
			e.adopted[k] = v
		case cur != v:
			notes = append(notes, fmt.Sprintf("the shared daemon's servers run with another %s than this session's (without --shared lspkit runs servers in your environment)", k))
		}
	}
	// What this client lacks that the servers have is said too: a host
	// that drops a variable gets the servers of those that did not.
	for _, k := range slices.Sorted(maps.Keys(e.own)) {
		if _, ok := client[k]; !ok && k != "PATH" {
			notes = append(notes, fmt.Sprintf("the shared daemon's servers run with %s, which this session does not set", k))
		}
	}
	return notes
}

// Extra is what the servers get on top of the daemon's own environment:
// the variables taken from clients, as KEY=VALUE.
func (e *ServerEnv) Extra() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, k := range slices.Sorted(maps.Keys(e.adopted)) {
		out = append(out, k+"="+e.adopted[k])
	}
	return out
}

// mergePath is a with b's directories that a lacks appended.
func mergePath(a, b string) string {
	if a == "" {
		return b
	}
	have := filepath.SplitList(a)
	out := a
	for _, d := range filepath.SplitList(b) {
		if d != "" && !slices.Contains(have, d) {
			have = append(have, d)
			out += string(os.PathListSeparator) + d
		}
	}
	return out
}
