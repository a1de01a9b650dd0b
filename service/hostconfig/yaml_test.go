package hostconfig

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestContinueYAML: Continue's config.yaml gets lspkit in its mcpServers
// list with every other byte kept — comments, order, quoting, the other
// servers — in each shape the list can be in; the same entry again is
// unchanged; another lspkit entry is refused unless forced, then replaced
// alone; a file that does not parse is left as it is.
func TestContinueYAML(t *testing.T) {
	item := "  - name: lspkit\n    command: lspkit\n    args:\n      - mcp\n      - --shared\n      - --read-only\n"
	for _, tc := range []struct {
		name, old, want string
	}{
		{"new file", "", "name: Local Config\nversion: 1.0.0\nschema: v1\nmcpServers:\n" + item},
		{"no list yet", "# mine\nname: Mine # keep\nversion: 1.0.0\nmodels:\n  - name: 'x'\n", "# mine\nname: Mine # keep\nversion: 1.0.0\nmodels:\n  - name: 'x'\nmcpServers:\n" + item},
		{"no newline at the end", "name: Mine", "name: Mine\nmcpServers:\n" + item},
		{"a list, a key after it", "name: Mine\nmcpServers:\n  # the first\n  - name: other\n    command: \"x\"   # quoted\n\n# rules follow\nrules:\n  - be brief\n",
			"name: Mine\nmcpServers:\n  # the first\n  - name: other\n    command: \"x\"   # quoted\n" + item + "\n# rules follow\nrules:\n  - be brief\n"},
		{"a list at the key's indentation", "mcpServers:\n- name: other\n  command: x\n", "mcpServers:\n- name: other\n  command: x\n" + strings.ReplaceAll(strings.TrimPrefix(item, "  "), "\n  ", "\n")},
		{"an empty key", "mcpServers:\nname: Mine\n", "mcpServers:\n" + item + "name: Mine\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := opts(t, "continue")
			file := filepath.Join(o.Home, ".continue", "config.yaml")
			if tc.old != "" {
				os.MkdirAll(filepath.Dir(file), 0o755)
				os.WriteFile(file, []byte(tc.old), 0o644)
			}
			res, err := Init(o)
			if err != nil {
				t.Fatal(err)
			}
			if got := read(t, file); got != tc.want {
				t.Fatalf("got:\n%s\nwant:\n%s", got, tc.want)
			}
			if res.Changes[0].File != file || !strings.Contains(res.Step, "cn") {
				t.Errorf("%+v", res)
			}
			if res, err := Init(o); err != nil || res.Changes[0].Action != "unchanged" || read(t, file) != tc.want {
				t.Fatalf("second init: %+v %v", res, err)
			}
		})
	}

	o := opts(t, "continue")
	file := filepath.Join(o.Home, ".continue", "config.yaml")
	os.MkdirAll(filepath.Dir(file), 0o755)
	old := "mcpServers:\n  - name: lspkit # old\n    command: /old/lspkit\n  - name: after\n    command: y\n"
	os.WriteFile(file, []byte(old), 0o644)
	if _, err := Init(o); !errors.Is(err, ErrDifferentEntry) || read(t, file) != old {
		t.Fatalf("a different entry: %v\n%s", err, read(t, file))
	}
	o.Force = true
	if res, err := Init(o); err != nil || res.Changes[0].Action != "replaced" {
		t.Fatalf("forced: %+v %v", res, err)
	}
	if got, want := read(t, file), "mcpServers:\n"+item+"  - name: after\n    command: y\n"; got != want {
		t.Fatalf("forced:\n%s\nwant:\n%s", got, want)
	}

	bad := "mcpServers:\n  - name: [unclosed\n"
	os.WriteFile(file, []byte(bad), 0o644)
	if _, err := Init(o); err == nil || !strings.Contains(err.Error(), "does not parse") || read(t, file) != bad {
		t.Fatalf("unparsable: %v", err)
	}
}
