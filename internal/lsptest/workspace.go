package lsptest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WriteFiles writes files (by slash-separated name) under dir.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// ServerEntry is a configuration entry for a fake server that runs
// behavior (a Launcher's Behaviors key) for files with extensions (none:
// ".fk").
func ServerEntry(behavior string, extensions ...string) string {
	exe, _ := os.Executable() // any existing file: the launcher ignores it
	exts := `".fk"`
	if len(extensions) > 0 {
		exts = `"` + strings.Join(extensions, `","`) + `"`
	}
	return fmt.Sprintf(`{"command": %q, "args": [%q], "extensions": [%s], "impact": "self"}`, exe, behavior, exts)
}

// Config is a configuration document with autoInstall off, the lsp
// options extra (",key":value…) and servers (ServerEntry's, each
// "id": entry).
func Config(extra string, servers ...string) string {
	return `{"lsp":{"autoInstall":false` + extra + `,"servers":{` + strings.Join(servers, ",") + `}}}`
}

// ImportingEntry is ServerEntry for a server whose dependents lspkit
// finds by reading Python-style imports in its .fk files.
func ImportingEntry(behavior string) string {
	return strings.Replace(ServerEntry(behavior), `"impact": "self"`, `"impact": "pythonImports"`, 1)
}

// Dependents is a project of lib.fk, alone.fk (an error, no import) and n
// files a.fk, b.fk, … that import lib, each with an error line when
// broken.
func Dependents(n int, broken bool) map[string]string {
	files := map[string]string{"lib.fk": "fine\n", "alone.fk": "ERROR not a dependent\n"}
	for i := range n {
		text := "import lib\nfine\n"
		if broken {
			text = "import lib\nERROR broken by lib\n"
		}
		files[string(rune('a'+i))+".fk"] = text
	}
	return files
}
