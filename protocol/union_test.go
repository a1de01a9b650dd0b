package protocol_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/google/go-cmp/cmp"

	"github.com/lspkit/lspkit/protocol"
)

// sampler builds JSON values of model types: "min" fills required members
// only, "full" every member (to a bounded depth).
type sampler struct {
	m    *testModel
	full bool
}

func (s *sampler) value(t *testType, depth int) any {
	switch t.Kind {
	case "base":
		switch t.Name {
		case "string":
			return "s"
		case "RegExp":
			return "a.*"
		case "URI", "DocumentUri":
			return "file:///w/a.go"
		case "integer":
			return -3
		case "uinteger":
			return 7
		case "decimal":
			return 1.5
		case "boolean":
			return true
		}
		return nil
	case "reference":
		for _, st := range s.m.Structures {
			if st.Name == t.Name {
				return s.object(s.m.allProps(st.Name), depth)
			}
		}
		for _, e := range s.m.Enumerations {
			if e.Name == t.Name {
				var v any
				_ = json.Unmarshal(e.Values[0].Value, &v)
				return v
			}
		}
		for _, a := range s.m.TypeAliases {
			if a.Name == t.Name {
				if a.Name == "LSPAny" || a.Name == "LSPObject" {
					return map[string]any{"any": []any{1, "x"}}
				}
				if a.Name == "LSPArray" {
					return []any{1}
				}
				return s.value(a.Type, depth)
			}
		}
	case "array":
		return []any{s.value(t.Element, depth+1)}
	case "tuple":
		var out []any
		for _, it := range t.Items {
			out = append(out, s.value(it, depth+1))
		}
		return out
	case "map":
		var vt testType
		_ = json.Unmarshal(t.Value, &vt)
		key := "k"
		if t.Key.Name == "DocumentUri" || t.Key.Name == "URI" {
			key = "file:///w/k.go"
		}
		return map[string]any{key: s.value(&vt, depth+1)}
	case "or":
		for _, it := range t.Items {
			if it.Kind != "base" || it.Name != "null" {
				return s.value(it, depth)
			}
		}
	case "and":
		out := map[string]any{}
		for _, it := range t.Items {
			for k, v := range s.value(it, depth).(map[string]any) {
				out[k] = v
			}
		}
		return out
	case "literal":
		var lit struct{ Properties []testProperty }
		_ = json.Unmarshal(t.Value, &lit)
		return s.object(lit.Properties, depth)
	case "stringLiteral":
		var v string
		_ = json.Unmarshal(t.Value, &v)
		return v
	}
	panic("sample: unhandled type " + t.Kind + " " + t.Name)
}

func (s *sampler) object(props []testProperty, depth int) map[string]any {
	out := map[string]any{}
	for _, p := range props {
		if p.Optional && (!s.full || depth > 3) {
			continue
		}
		out[p.Name] = s.value(p.Type, depth+1)
	}
	return out
}

// allProps returns a structure's flattened properties.
func (m *testModel) allProps(name string) []testProperty {
	for _, s := range m.Structures {
		if s.Name != name {
			continue
		}
		var out []testProperty
		idx := map[string]int{}
		add := func(p testProperty) {
			if i, ok := idx[p.Name]; ok {
				out[i] = p
				return
			}
			idx[p.Name] = len(out)
			out = append(out, p)
		}
		for _, e := range append(append([]*testType(nil), s.Extends...), s.Mixins...) {
			for _, p := range m.allProps(e.Name) {
				add(p)
			}
		}
		for _, p := range s.Properties {
			add(p)
		}
		return out
	}
	return nil
}

// unionType unwraps pointers, slices, maps and Nullable down to a union.
func unionType(t reflect.Type) (reflect.Type, bool) {
	for {
		if _, ok := t.MethodByName("Kind"); ok && t.Kind() == reflect.Struct {
			return t, true
		}
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Array:
			t = t.Elem()
		case reflect.Struct:
			f, ok := t.FieldByName("value")
			if !ok || !strings.HasPrefix(t.Name(), "Nullable[") {
				return nil, false
			}
			t = f.Type
		default:
			return nil, false
		}
	}
}

// unionSite is one place of the model typed by a union of several alternatives.
type unionSite struct {
	where string
	alts  []*testType // without null
	typ   reflect.Type
}

func unionSites(t *testing.T, m *testModel) []unionSite {
	var sites []unionSite
	var find func(where string, mt *testType, gt reflect.Type)
	find = func(where string, mt *testType, gt reflect.Type) {
		switch mt.Kind {
		case "array":
			find(where+"[]", mt.Element, gt)
		case "map":
			var vt testType
			_ = json.Unmarshal(mt.Value, &vt)
			find(where+"{}", &vt, gt)
		case "or":
			var alts []*testType
			for _, it := range mt.Items {
				if it.Kind != "base" || it.Name != "null" {
					alts = append(alts, it)
				}
			}
			if len(alts) == 1 {
				find(where, alts[0], gt)
				return
			}
			ut, ok := unionType(gt)
			if !ok {
				t.Errorf("%s: %v is not a union", where, gt)
				return
			}
			sites = append(sites, unionSite{where, alts, ut})
			for _, a := range alts {
				if a.Kind == "array" && a.Element.Kind == "or" {
					find(where+"|[]", a.Element, ut.Field(1).Type) // element unions are checked at their own type
				}
			}
		}
	}
	for _, s := range m.Structures {
		typ, _ := protocol.LookupType(s.Name)
		for _, p := range s.Properties {
			for i := 0; i < typ.NumField(); i++ {
				f := typ.Field(i)
				if n, _, _ := strings.Cut(f.Tag.Get("json"), ","); n == p.Name {
					find(s.Name+"."+p.Name, p.Type, f.Type)
				}
			}
		}
	}
	for _, a := range m.TypeAliases {
		if a.Name == "LSPAny" {
			continue
		}
		typ, _ := protocol.LookupType(a.Name)
		find(a.Name, a.Type, typ)
	}
	for _, me := range m.Requests {
		info, _ := protocol.LookupMethod(me.Method)
		find(me.Method+" result", me.Result, info.Result)
		if me.PartialResult != nil {
			find(me.Method+" partial result", me.PartialResult, info.PartialResult)
		}
	}
	return sites
}

// countUnions counts the unions of two or more non-null alternatives in the
// model (LSPAny aside, which is raw JSON).
func countUnions(m *testModel) int {
	n := 0
	var walk func(t *testType)
	walk = func(t *testType) {
		if t == nil {
			return
		}
		switch t.Kind {
		case "or":
			alts := 0
			for _, it := range t.Items {
				if it.Kind != "base" || it.Name != "null" {
					alts++
				}
				walk(it)
			}
			if alts > 1 {
				n++
			}
		case "array":
			walk(t.Element)
		case "map":
			var vt testType
			_ = json.Unmarshal(t.Value, &vt)
			walk(&vt)
		case "and", "tuple":
			for _, it := range t.Items {
				walk(it)
			}
		}
	}
	for _, s := range m.Structures {
		for _, p := range s.Properties {
			walk(p.Type)
		}
	}
	for _, a := range m.TypeAliases {
		if a.Name != "LSPAny" {
			walk(a.Type)
		}
	}
	for _, me := range append(append([]testMethod(nil), m.Requests...), m.Notifications...) {
		walk(me.Params)
		walk(me.Result)
		walk(me.PartialResult)
		walk(me.RegistrationOptions)
	}
	return n
}

func canon(t *testing.T, b []byte) any {
	t.Helper()
	return normalize(t, b)
}

// TestUnionsEveryAlternative: for every union in the model, a sample of each
// alternative (required members only, then all members) decodes to that
// alternative and re-encodes to the same JSON. Where two alternatives'
// samples are the very same JSON, either answer is right and it is counted.
func TestUnionsEveryAlternative(t *testing.T) {
	m := loadTestModel(t)
	sites := unionSites(t, m)
	if want := countUnions(m); len(sites) != want {
		t.Fatalf("found %d union sites, the model has %d", len(sites), want)
	}
	checked, identical := 0, 0
	for _, site := range sites {
		for _, full := range []bool{false, true} {
			s := &sampler{m: m, full: full}
			samples := make([][]byte, len(site.alts))
			for i, a := range site.alts {
				samples[i], _ = json.Marshal(s.value(a, 0))
			}
			for i := range site.alts {
				v := reflect.New(site.typ)
				if err := jsonv2.Unmarshal(samples[i], v.Interface()); err != nil {
					t.Errorf("%s alternative %d (%s): decode %s: %v", site.where, i, site.alts[i].Name, samples[i], err)
					continue
				}
				got := int(v.Elem().MethodByName("Kind").Call(nil)[0].Uint()) - 1
				if got != i {
					if string(samples[got]) == string(samples[i]) {
						identical++
					} else {
						t.Errorf("%s: %s decoded as alternative %d, want %d", site.where, samples[i], got, i)
					}
				}
				out, err := jsonv2.Marshal(v.Interface())
				if err != nil {
					t.Errorf("%s alternative %d: encode: %v", site.where, i, err)
					continue
				}
				if diff := cmp.Diff(canon(t, samples[i]), canon(t, out)); diff != "" {
					t.Errorf("%s alternative %d does not round-trip:\n%s", site.where, i, diff)
				}
				checked++
			}
		}
	}
	t.Logf("%d union sites, %d alternative samples round-tripped, %d samples identical to an earlier alternative's", len(sites), checked, identical)
}

func decodeAs[T any](t *testing.T, in string) T {
	t.Helper()
	var v T
	if err := jsonv2.Unmarshal([]byte(in), &v); err != nil {
		t.Fatalf("decode %s as %T: %v", in, v, err)
	}
	out, err := jsonv2.Marshal(v)
	if err != nil {
		t.Fatalf("encode %T: %v", v, err)
	}
	if diff := cmp.Diff(canon(t, []byte(in)), canon(t, out)); diff != "" {
		t.Fatalf("%s does not round-trip:\n%s", in, diff)
	}
	return v
}

// TestUnionsAmbiguousLooking decodes inputs whose alternatives share a JSON
// kind and checks the decoder picked the right one.
func TestUnionsAmbiguousLooking(t *testing.T) {
	t.Run("Hover.contents", func(t *testing.T) {
		h := decodeAs[protocol.Hover](t, `{"contents":{"kind":"markdown","value":"**x**"}}`)
		if mc, ok := h.Contents.AsMarkupContent(); !ok || mc.Kind != protocol.MarkupKindMarkdown {
			t.Fatalf("MarkupContent: got %v", h.Contents.Kind())
		}
		h = decodeAs[protocol.Hover](t, `{"contents":{"language":"go","value":"func f()"}}`)
		ms, ok := h.Contents.AsMarkedString()
		if !ok {
			t.Fatalf("MarkedString object: got %v", h.Contents.Kind())
		}
		if w, ok := ms.AsMarkedStringWithLanguage(); !ok || w.Language != "go" {
			t.Fatalf("MarkedStringWithLanguage: got %v", ms.Kind())
		}
		h = decodeAs[protocol.Hover](t, `{"contents":"plain"}`)
		if ms, ok := h.Contents.AsMarkedString(); !ok || ms.Kind() != protocol.MarkedStringKindString {
			t.Fatalf("MarkedString string: got %v", h.Contents.Kind())
		}
		h = decodeAs[protocol.Hover](t, `{"contents":["a",{"language":"go","value":"x"}]}`)
		if list, ok := h.Contents.AsMarkedStringSlice(); !ok || len(list) != 2 || list[1].Kind() != protocol.MarkedStringKindMarkedStringWithLanguage {
			t.Fatalf("MarkedString[]: got %v", h.Contents.Kind())
		}
	})
	t.Run("CompletionItem.textEdit", func(t *testing.T) {
		c := decodeAs[protocol.CompletionItem](t, `{"label":"x","textEdit":{"range":{"start":{"line":1,"character":2},"end":{"line":1,"character":4}},"newText":"xy"}}`)
		if te, ok := c.TextEdit.AsTextEdit(); !ok || te.NewText != "xy" || te.Range.End.Character != 4 {
			t.Fatalf("TextEdit: got %v", c.TextEdit.Kind())
		}
		c = decodeAs[protocol.CompletionItem](t, `{"label":"x","textEdit":{"newText":"xy","insert":{"start":{"line":1,"character":2},"end":{"line":1,"character":3}},"replace":{"start":{"line":1,"character":2},"end":{"line":1,"character":4}}}}`)
		if ire, ok := c.TextEdit.AsInsertReplaceEdit(); !ok || ire.Replace.End.Character != 4 {
			t.Fatalf("InsertReplaceEdit: got %v", c.TextEdit.Kind())
		}
	})
	t.Run("definition results", func(t *testing.T) {
		type result = protocol.Nullable[protocol.DefinitionOrDefinitionLinkSlice]
		loc := `{"uri":"file:///a.go","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}}`
		r := decodeAs[result](t, loc)
		v, _ := r.Get()
		d, ok := v.AsDefinition()
		if !ok || d.Kind() != protocol.DefinitionKindLocation {
			t.Fatalf("Location: got %v", v.Kind())
		}
		r = decodeAs[result](t, "["+loc+"]")
		v, _ = r.Get()
		if d, ok := v.AsDefinition(); !ok || d.Kind() != protocol.DefinitionKindLocationSlice {
			t.Fatalf("Location[]: got %v", v.Kind())
		}
		link := `{"targetUri":"file:///a.go","targetRange":{"start":{"line":0,"character":0},"end":{"line":2,"character":1}},"targetSelectionRange":{"start":{"line":0,"character":5},"end":{"line":0,"character":6}}}`
		r = decodeAs[result](t, "["+link+"]")
		v, _ = r.Get()
		if links, ok := v.AsDefinitionLinkSlice(); !ok || links[0].TargetURI != "file:///a.go" {
			t.Fatalf("LocationLink[]: got %v", v.Kind())
		}
		r = decodeAs[result](t, "null")
		if !r.IsNull() {
			t.Fatal("null result is not null")
		}
		r = decodeAs[result](t, "[]")
		if v, _ := r.Get(); v.Kind() == protocol.DefinitionOrDefinitionLinkSliceKindNone {
			t.Fatal("empty array decoded to no alternative")
		}
	})
	t.Run("textDocumentSync", func(t *testing.T) {
		c := decodeAs[protocol.ServerCapabilities](t, `{"textDocumentSync":2}`)
		if k, ok := c.TextDocumentSync.AsTextDocumentSyncKind(); !ok || k != protocol.TextDocumentSyncKindIncremental {
			t.Fatalf("kind: got %v", c.TextDocumentSync.Kind())
		}
		c = decodeAs[protocol.ServerCapabilities](t, `{"textDocumentSync":{"openClose":true,"change":1,"save":{"includeText":false}}}`)
		o, ok := c.TextDocumentSync.AsTextDocumentSyncOptions()
		if !ok || o.Change == nil || *o.Change != protocol.TextDocumentSyncKindFull {
			t.Fatalf("options: got %v", c.TextDocumentSync.Kind())
		}
		if s, ok := o.Save.AsSaveOptions(); !ok || s.IncludeText == nil || *s.IncludeText {
			t.Fatalf("save options: got %v", o.Save.Kind())
		}
	})
	t.Run("ProgressToken", func(t *testing.T) {
		p := decodeAs[protocol.ProgressParams](t, `{"token":42,"value":{"kind":"end"}}`)
		if n, ok := p.Token.AsInteger(); !ok || n != 42 {
			t.Fatalf("integer token: got %v", p.Token.Kind())
		}
		p = decodeAs[protocol.ProgressParams](t, `{"token":"42","value":{"kind":"end"}}`)
		if s, ok := p.Token.AsString(); !ok || s != "42" {
			t.Fatalf("string token: got %v", p.Token.Kind())
		}
	})
	t.Run("Diagnostic.code", func(t *testing.T) {
		rng := `"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}`
		d := decodeAs[protocol.Diagnostic](t, `{`+rng+`,"message":"m","code":2322}`)
		if n, ok := d.Code.AsInteger(); !ok || n != 2322 {
			t.Fatalf("integer code: got %v", d.Code.Kind())
		}
		d = decodeAs[protocol.Diagnostic](t, `{`+rng+`,"message":"m","code":"E501"}`)
		if s, ok := d.Code.AsString(); !ok || s != "E501" {
			t.Fatalf("string code: got %v", d.Code.Kind())
		}
		d = decodeAs[protocol.Diagnostic](t, `{`+rng+`,"message":"m"}`)
		if !d.Code.IsZero() {
			t.Fatal("absent code is set")
		}
	})
	t.Run("WorkspaceEdit.documentChanges", func(t *testing.T) {
		w := decodeAs[protocol.WorkspaceEdit](t, `{"documentChanges":[
			{"textDocument":{"uri":"file:///a.go","version":3},"edits":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"newText":"x"},{"range":{"start":{"line":1,"character":0},"end":{"line":1,"character":0}},"newText":"y","annotationId":"a1"}]},
			{"kind":"create","uri":"file:///b.go","options":{"overwrite":true}},
			{"kind":"rename","oldUri":"file:///b.go","newUri":"file:///c.go"},
			{"kind":"delete","uri":"file:///c.go","options":{"recursive":true}}]}`)
		want := []string{"TextDocumentEdit", "CreateFile", "RenameFile", "DeleteFile"}
		if len(w.DocumentChanges) != 4 {
			t.Fatalf("got %d changes", len(w.DocumentChanges))
		}
		for i, c := range w.DocumentChanges {
			if got := fmt.Sprint(c.Kind()); got != want[i] {
				t.Errorf("change %d: got %s, want %s", i, got, want[i])
			}
		}
		te, _ := w.DocumentChanges[0].AsTextDocumentEdit()
		if te.Edits[0].Kind().String() != "TextEdit" || te.Edits[1].Kind().String() != "AnnotatedTextEdit" {
			t.Errorf("edits: got %v, %v", te.Edits[0].Kind(), te.Edits[1].Kind())
		}
		if v, ok := te.TextDocument.Version.Get(); !ok || v != 3 {
			t.Errorf("version: %v %v", v, ok)
		}
	})
}

// TestUnionsInvalid: inputs no alternative accepts are errors naming the
// union or the member, never a silent wrong alternative or a panic.
func TestUnionsInvalid(t *testing.T) {
	rng := `"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}`
	cases := []struct {
		name, in, want string
		into           func() any
	}{
		{"hover contents number", `{"contents":5}`, "HoverContents", func() any { return new(protocol.Hover) }},
		{"hover contents bad object", `{"contents":{"value":"x"}}`, "HoverContents", func() any { return new(protocol.Hover) }},
		{"textEdit matching neither", `{"label":"x","textEdit":{"newText":"x"}}`, "CompletionItemTextEdit", func() any { return new(protocol.CompletionItem) }},
		{"documentChanges unknown kind", `{"documentChanges":[{"kind":"move","uri":"file:///a"}]}`, "WorkspaceEditDocumentChangesElem", func() any { return new(protocol.WorkspaceEdit) }},
		{"create without uri", `{"documentChanges":[{"kind":"create"}]}`, `CreateFile.uri: missing required property`, func() any { return new(protocol.WorkspaceEdit) }},
		{"definition string", `"file:///a.go"`, "DefinitionOrDefinitionLinkSlice", func() any { return new(protocol.Nullable[protocol.DefinitionOrDefinitionLinkSlice]) }},
		{"definition mixed array", `[{"foo":1}]`, "DefinitionOrDefinitionLinkSlice", func() any { return new(protocol.Nullable[protocol.DefinitionOrDefinitionLinkSlice]) }},
		{"progress token bool", `{"token":true,"value":{}}`, "ProgressToken", func() any { return new(protocol.ProgressParams) }},
		{"sync kind out of range", `{"textDocumentSync":7}`, "TextDocumentSyncKind", func() any { return new(protocol.ServerCapabilities) }},
		{"code decimal", `{` + rng + `,"message":"m","code":1.5}`, "IntegerOrString", func() any { return new(protocol.Diagnostic) }},
		{"missing message", `{` + rng + `}`, `Diagnostic.message: missing required property`, func() any { return new(protocol.Diagnostic) }},
		{"null message", `{` + rng + `,"message":null}`, `Diagnostic.message: null is not allowed`, func() any { return new(protocol.Diagnostic) }},
		{"position not object", `{"line":1,"character":"2"}`, `Position.character`, func() any { return new(protocol.Position) }},
		{"negative uinteger", `{"line":-1,"character":0}`, `Position.line`, func() any { return new(protocol.Position) }},
		{"literal mismatch", `{"kind":"rename","uri":"file:///a"}`, `LiteralCreate`, func() any { return new(protocol.CreateFile) }},
		{"closed string enum", `{"kind":"html","value":"x"}`, `MarkupKind`, func() any { return new(protocol.MarkupContent) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := jsonv2.Unmarshal([]byte(c.in), c.into())
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("decode %s: got error %v, want one mentioning %q", c.in, err, c.want)
			}
		})
	}
}
