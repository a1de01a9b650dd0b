package shared

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestServerEnv: what the daemon lacks is taken from a client, a PATH
// gains the directories it lacks, what differs is said and kept, and
// lspkit's own variables are never taken (the daemon read them at start).
func TestServerEnv(t *testing.T) {
	sep := string(os.PathListSeparator)
	e := NewServerEnv([]string{"PATH=/usr/bin", "HOME=/h", "GOFLAGS=-mod=mod", "LSPKIT_RUNTIME_DIR=/x", "UNRELATED=1"})
	notes := e.Join(ServerVars([]string{"PATH=/opt/go/bin" + sep + "/usr/bin", "GOPATH=/g", "GOFLAGS=-mod=vendor", "LSPKIT_SERVERS=/s", "LSPKIT_RUNTIME_DIR=/y", "LSPKIT_OTHER=1", "SECRET_TOKEN=t", "GOOGLE_API_KEY=k", "NPM_CONFIG__AUTH=a"}))
	want := []string{
		"the shared daemon's servers run with another GOFLAGS than this session's (without --shared lspkit runs servers in your environment)",
		"the shared daemon was started without this session's LSPKIT_SERVERS: it keeps its own",
	}
	if !slices.Equal(notes, want) {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(notes, "\n"), strings.Join(want, "\n"))
	}
	if got := e.Extra(); !slices.Equal(got, []string{"GOPATH=/g", "PATH=/usr/bin" + sep + "/opt/go/bin"}) {
		t.Errorf("servers get %q", got)
	}
	// A later client with the taken value hears nothing of it; one that
	// lacks what the daemon has is told.
	if notes := e.Join(map[string]string{"GOPATH": "/g", "GOFLAGS": "-mod=mod"}); len(notes) != 0 {
		t.Errorf("notes %q", notes)
	}
	if notes := e.Join(map[string]string{"PATH": "/usr/bin"}); len(notes) != 1 || !strings.Contains(notes[0], "run with GOFLAGS, which this session does not set") {
		t.Errorf("notes %q", notes)
	}
}
