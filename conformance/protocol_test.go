package conformance

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"reflect"
	"slices"
	"strings"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/google/go-cmp/cmp"

	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/transport"
)

// TestProtocol decodes every message of every transcript into the
// generated type for its method and part (params, result or error),
// re-encodes it and requires the same JSON: every value the model knows
// comes back unchanged. Members the model does not define (servers'
// private extensions such as clangd's astProvider or TypeScript 7's
// _vs_* capabilities) are the only thing allowed to go missing, and they
// are listed per server; methods outside the model are counted.
func TestProtocol(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			tr, err := ReadTranscript(filepath.Join("testdata", sc.name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			checked, extensions, unknown := checkProtocol(t, tr)
			if checked < 10 {
				t.Fatalf("only %d messages checked", checked)
			}
			slices.Sort(unknown)
			for _, u := range unknown {
				if name := u[strings.LastIndex(u, ".")+1:]; modelNames()[name] {
					t.Errorf("%s was dropped, but the model defines a member %q: a decoder lost it", u, name)
				}
			}
			t.Logf("%s: %d messages decoded and re-encoded; %d messages of the server's own methods; members outside the model: %v", sc.name, checked, extensions, unknown)
		})
	}
}

func checkProtocol(t *testing.T, tr *Transcript) (checked, extensions int, unknown []string) {
	t.Helper()
	requests := map[string]string{} // "dir id" of a request -> its method
	for _, e := range tr.Entries {
		if e.Dir == Expect {
			continue
		}
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(e.Msg, &env); err != nil {
			t.Fatalf("line %d: %v", e.Line, err)
		}
		var part string
		var raw []byte
		var target any
		switch {
		case env.Method != "":
			info, ok := protocol.LookupMethod(env.Method)
			if !ok {
				extensions++
				continue
			}
			if env.ID != nil {
				requests[e.Dir+" "+string(env.ID)] = env.Method
			}
			if env.Params == nil {
				checked++
				continue
			}
			part, raw, target = env.Method+" params", env.Params, info.NewParams()
		default:
			other := map[string]string{ClientToServer: ServerToClient, ServerToClient: ClientToServer}[e.Dir]
			method, ok := requests[other+" "+string(env.ID)]
			if !ok {
				t.Errorf("line %d: response to unknown request %s", e.Line, env.ID)
				continue
			}
			if env.Error != nil {
				part, raw, target = method+" error", env.Error, &transport.Error{}
				break
			}
			info, _ := protocol.LookupMethod(method)
			part, raw, target = method+" result", env.Result, info.NewResult()
		}
		if target == nil { // a method whose result is null by definition
			if string(raw) != "null" {
				t.Errorf("line %d: %s: %s where the model says null", e.Line, part, raw)
			}
			checked++
			continue
		}
		if err := jsonv2.Unmarshal(raw, target); err != nil {
			t.Errorf("line %d: decode %s: %v", e.Line, part, err)
			continue
		}
		out, err := jsonv2.Marshal(target)
		if err != nil {
			t.Errorf("line %d: encode %s: %v", e.Line, part, err)
			continue
		}
		sent, back := generic(t, raw), generic(t, out)
		extra := dropUnknown(part, sent, back)
		for _, u := range extra {
			if !slices.Contains(unknown, u) {
				unknown = append(unknown, u)
			}
		}
		if diff := cmp.Diff(sent, back); diff != "" {
			t.Errorf("line %d: %s does not round-trip (-sent +re-encoded):\n%s", e.Line, part, diff)
		}
		checked++
	}
	return checked, extensions, unknown
}

// modelNames is every member name the generated structures know.
var modelNames = sync.OnceValue(func() map[string]bool {
	names := map[string]bool{}
	for _, n := range protocol.ModelTypeNames() {
		typ, ok := protocol.LookupType(n)
		if !ok || typ.Kind() != reflect.Struct {
			continue
		}
		for f := range typ.Fields() {
			if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag != "" && tag != "-" {
				names[tag] = true
			}
		}
	}
	return names
})

// dropUnknown removes from sent the object members that back lacks — the
// ones the model does not define, which decoding skips — and members whose
// value is null (absent and null are one for optional members). It returns
// the paths of the unknown ones.
func dropUnknown(path string, sent, back any) []string {
	var out []string
	switch s := sent.(type) {
	case map[string]any:
		b, _ := back.(map[string]any)
		for k, v := range s {
			bv, ok := b[k]
			if !ok {
				delete(s, k)
				if v != nil {
					out = append(out, path+"."+k)
				}
				continue
			}
			out = append(out, dropUnknown(path+"."+k, v, bv)...)
		}
	case []any:
		b, _ := back.([]any)
		for i := range s {
			if i < len(b) {
				out = append(out, dropUnknown(path, s[i], b[i])...)
			}
		}
	}
	return out
}

// generic parses JSON for comparison, numbers kept exact.
func generic(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("parse %s: %v", b, err)
	}
	return v
}
