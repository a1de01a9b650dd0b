package protocol_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/lspkit/lspkit/protocol"
)

// The meta model, as much of it as the tests need.
type testModel struct {
	MetaData      struct{ Version string } `json:"metaData"`
	Requests      []testMethod             `json:"requests"`
	Notifications []testMethod             `json:"notifications"`
	Structures    []testStructure          `json:"structures"`
	Enumerations  []testEnum               `json:"enumerations"`
	TypeAliases   []struct {
		Name string    `json:"name"`
		Type *testType `json:"type"`
	} `json:"typeAliases"`
}

type testMethod struct {
	Method              string    `json:"method"`
	MessageDirection    string    `json:"messageDirection"`
	Params              *testType `json:"params"`
	Result              *testType `json:"result"`
	PartialResult       *testType `json:"partialResult"`
	RegistrationOptions *testType `json:"registrationOptions"`
}

type testStructure struct {
	Name       string         `json:"name"`
	Extends    []*testType    `json:"extends"`
	Mixins     []*testType    `json:"mixins"`
	Properties []testProperty `json:"properties"`
}

type testProperty struct {
	Name     string    `json:"name"`
	Type     *testType `json:"type"`
	Optional bool      `json:"optional"`
}

type testEnum struct {
	Name   string `json:"name"`
	Type   testType
	Values []struct {
		Name  string          `json:"name"`
		Value json.RawMessage `json:"value"`
	} `json:"values"`
	SupportsCustomValues bool `json:"supportsCustomValues"`
}

type testType struct {
	Kind    string          `json:"kind"`
	Name    string          `json:"name"`
	Element *testType       `json:"element"`
	Key     *testType       `json:"key"`
	Value   json.RawMessage `json:"value"`
	Items   []*testType     `json:"items"`
}

func loadTestModel(t testing.TB) *testModel {
	t.Helper()
	b, err := os.ReadFile("../metaModel.json")
	if err != nil {
		t.Fatal(err)
	}
	var m testModel
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return &m
}

// flatProps returns a structure's property names with extends and mixins.
func (m *testModel) flatProps(name string) []string {
	var out []string
	for _, p := range m.allProps(name) {
		out = append(out, p.Name)
	}
	return out
}

// jsonNames returns the JSON member names of a struct type, sorted.
func jsonNames(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}

// TestModelCoverage proves every structure, enumeration, type alias,
// request and notification of metaModel.json has its generated counterpart,
// structures with exactly the model's JSON property names.
func TestModelCoverage(t *testing.T) {
	m := loadTestModel(t)
	if protocol.ModelVersion != m.MetaData.Version {
		t.Fatalf("ModelVersion %s, metaModel.json %s", protocol.ModelVersion, m.MetaData.Version)
	}
	n := 0
	for _, s := range m.Structures {
		typ, ok := protocol.LookupType(s.Name)
		if !ok || typ.Kind() != reflect.Struct {
			t.Errorf("structure %s: no generated struct (got %v)", s.Name, typ)
			continue
		}
		if got, want := jsonNames(typ), sorted(m.flatProps(s.Name)); !reflect.DeepEqual(got, want) {
			t.Errorf("structure %s: JSON names %v, want %v", s.Name, got, want)
		}
		n++
	}
	for _, e := range m.Enumerations {
		typ, ok := protocol.LookupType(e.Name)
		if !ok {
			t.Errorf("enumeration %s: no generated type", e.Name)
			continue
		}
		isKnown, _ := typ.MethodByName("IsKnown")
		for _, v := range e.Values {
			val := reflect.New(typ)
			if err := json.Unmarshal(v.Value, val.Interface()); err != nil {
				t.Errorf("enumeration %s value %s: %v", e.Name, v.Name, err)
				continue
			}
			if !isKnown.Func.Call([]reflect.Value{val.Elem()})[0].Bool() {
				t.Errorf("enumeration %s: IsKnown(%s) is false", e.Name, v.Value)
			}
			if s := val.Elem().Interface().(interface{ String() string }).String(); s == "" {
				t.Errorf("enumeration %s: empty String for %s", e.Name, v.Value)
			}
		}
		n++
	}
	for _, a := range m.TypeAliases {
		if _, ok := protocol.LookupType(a.Name); !ok {
			t.Errorf("type alias %s: no generated type", a.Name)
		}
		n++
	}
	if got, want := len(protocol.ModelTypeNames()), len(m.Structures)+len(m.Enumerations)+len(m.TypeAliases); got != want {
		t.Errorf("type index has %d names, model has %d types", got, want)
	}
	dirs := map[string]protocol.MessageDirection{"clientToServer": protocol.ClientToServer, "serverToClient": protocol.ServerToClient, "both": protocol.BothDirections}
	for _, group := range []struct {
		list         []testMethod
		notification bool
	}{{m.Requests, false}, {m.Notifications, true}} {
		for _, me := range group.list {
			info, ok := protocol.LookupMethod(me.Method)
			if !ok {
				t.Errorf("method %s: not in the method table", me.Method)
				continue
			}
			if info.Notification != group.notification || info.Direction != dirs[me.MessageDirection] {
				t.Errorf("method %s: notification=%v direction=%v", me.Method, info.Notification, info.Direction)
			}
			if (me.Params != nil) != (info.Params != reflect.TypeFor[protocol.NoParams]()) {
				t.Errorf("method %s: params %v, model has params: %v", me.Method, info.Params, me.Params != nil)
			}
			if me.Params != nil && me.Params.Kind == "reference" {
				if want, _ := protocol.LookupType(me.Params.Name); info.Params != want {
					t.Errorf("method %s: params type %v, want %v", me.Method, info.Params, want)
				}
			}
			if !group.notification && (info.Result == nil || info.NewResult() == nil) {
				t.Errorf("method %s: no result type", me.Method)
			}
			if (me.PartialResult != nil) != (info.PartialResult != nil) || (me.RegistrationOptions != nil) != (info.RegistrationOptions != nil) {
				t.Errorf("method %s: partial result or registration options missing", me.Method)
			}
			if p := info.NewParams(); p == nil || reflect.TypeOf(p).Elem() != info.Params {
				t.Errorf("method %s: NewParams gives %T", me.Method, p)
			}
			n++
		}
	}
	if got, want := len(protocol.Methods()), len(m.Requests)+len(m.Notifications); got != want {
		t.Errorf("Methods() has %d, model %d", got, want)
	}
	t.Logf("%d model elements checked", n)
}

// goplsStructs parses gopls's generated tsprotocol.go at the version
// lspkit pins (service/registry/servers.json, fetched into the module cache
// by go mod download) and returns the JSON names of every struct, embedded
// structs included.
func goplsStructs(t *testing.T) map[string][]string {
	t.Helper()
	module := goplsModule(t)
	out, err := exec.Command("go", "mod", "download", "-json", module).Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v", module, err)
	}
	var d struct{ Dir string }
	if err := json.Unmarshal(out, &d); err != nil || d.Dir == "" {
		t.Fatalf("go mod download %s: %s", module, out)
	}
	dir := d.Dir
	file := filepath.Join(dir, "internal", "protocol", "tsprotocol.go")
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]*ast.StructType{}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok {
			for _, s := range g.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok {
					if st, ok := ts.Type.(*ast.StructType); ok {
						types[ts.Name.Name] = st
					}
				}
			}
		}
	}
	var names func(st *ast.StructType) []string
	names = func(st *ast.StructType) []string {
		var out []string
		for _, fl := range st.Fields.List {
			if len(fl.Names) == 0 { // embedded: its members are promoted
				if id, ok := fl.Type.(*ast.Ident); ok && types[id.Name] != nil {
					out = append(out, names(types[id.Name])...)
				}
				continue
			}
			if fl.Tag != nil {
				tag := reflect.StructTag(strings.Trim(fl.Tag.Value, "`")).Get("json")
				name, _, _ := strings.Cut(tag, ",")
				if name != "" && name != "-" {
					out = append(out, name)
				}
			}
		}
		return out
	}
	res := map[string][]string{}
	for n, st := range types {
		// A member that an embedded struct also has appears once on the wire
		// (Go's shallower-field-wins rule): gopls's CreateFile embeds
		// ResourceOperation and redeclares its kind.
		seen := map[string]bool{}
		var uniq []string
		for _, m := range names(st) {
			if !seen[m] {
				seen[m] = true
				uniq = append(uniq, m)
			}
		}
		res[n] = sorted(uniq)
	}
	return res
}

// isUnion reports whether t is, or holds (through pointers, slices, maps and
// Nullable), one of our generated unions.
func isUnion(t reflect.Type) bool {
	for {
		if _, ok := t.MethodByName("Kind"); ok && t.Kind() == reflect.Struct {
			return true
		}
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Array:
			t = t.Elem()
		case reflect.Struct:
			f, ok := t.FieldByName("value") // Nullable[T]
			if !ok || !strings.HasPrefix(t.Name(), "Nullable[") {
				return false
			}
			t = f.Type
		default:
			return false
		}
	}
}

// goplsModule reads the gopls module@version the registry pins.
func goplsModule(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../service/registry/servers.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Installs map[string]struct {
			Packages []string `json:"packages"`
		} `json:"installs"`
	}
	if err := json.Unmarshal(data, &f); err != nil || len(f.Installs["gopls"].Packages) != 1 {
		t.Fatalf("servers.json: no gopls install (%v)", err)
	}
	return f.Installs["gopls"].Packages[0]
}

// TestGoplsDifferential maps every struct of gopls v0.23.0's generated
// protocol to ours and compares JSON property names. Structs with the same
// name must have the same names; gopls's union wrappers (Or_*) must map to a
// generated union at the same place; everything else is listed below with
// why it differs.
func TestGoplsDifferential(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil && os.Getenv("LSPKIT_REQUIRE_SERVERS") == "" {
		t.Skip("no go command to download gopls's source with (a Windows test binary under Wine)")
	}
	gopls := goplsStructs(t)
	ours := map[string]reflect.Type{}
	for _, n := range protocol.ModelTypeNames() {
		typ, _ := protocol.LookupType(n)
		ours[typ.Name()] = typ
	}
	// explained lists gopls structs with no same-named struct of ours: the
	// counterpart (a Go type name of ours, or "" for none) and why.
	explained := map[string]struct {
		ours reflect.Type // nil: no counterpart
		why  string
	}{
		// gopls names the model's _InitializeParams XInitializeParams; ours is
		// InitializeParamsBase (a leading underscore becomes a Base suffix).
		"XInitializeParams": {reflect.TypeFor[protocol.InitializeParamsBase](), "naming of _InitializeParams"},
		// gopls hand-names InitializeParams and WorkspaceFoldersServerCapabilities.
		"ParamInitialize":     {reflect.TypeFor[protocol.InitializeParams](), "hand-named in gopls"},
		"WorkspaceFolders5Gn": {reflect.TypeFor[protocol.WorkspaceFoldersServerCapabilities](), "hand-named in gopls"},
		// workspace/configuration's params, hand-named in gopls.
		"ParamConfiguration": {reflect.TypeFor[protocol.ConfigurationParams](), "hand-named in gopls"},
		// The anonymous intersection WorkDoneProgressOptions & TextDocumentRegistrationOptions
		// (textDocument/colorPresentation's registration options) is named after its method here.
		"WorkDoneProgressOptionsAndTextDocumentRegistrationOptions": {reflect.TypeFor[protocol.ColorPresentationRegistrationOptions](), "naming of an anonymous \"and\" type"},
		// The empty literal {} is one EmptyObject type here; gopls names each occurrence.
		"Lit_ClientSemanticTokensRequestOptions_range_Item1": {reflect.TypeFor[protocol.EmptyObject](), "naming of the empty literal"},
		"PRangeESemanticTokensOptions":                       {reflect.TypeFor[protocol.EmptyObject](), "naming of the empty literal"},
		// gopls emits the tuple [uinteger, uinteger] as a struct (a JSON object,
		// which is wrong); ours is [2]uint32, a JSON array as the model says.
		"UIntCommaUInt": {nil, "the tuple is a Go array ([2]uint32) here"},
		// gopls's hand-written PreviousResultID is the model's PreviousResultId.
		"PreviousResultID": {reflect.TypeFor[protocol.PreviousResultID](), "same type, spelled as gopls spells it"},
		// gopls's hand-named unions (its generator's hand table) are {Value any}
		// wrappers; ours are unions named by the general rule.
		"OrPLocation_workspace_symbol":                {nil, "hand-named union in gopls: ours is " + reflect.TypeFor[protocol.WorkspaceSymbolLocation]().Name()},
		"OrPSection_workspace_didChangeConfiguration": {nil, "hand-named union in gopls: ours is " + reflect.TypeFor[protocol.DidChangeConfigurationRegistrationOptionsSection]().Name()},
		"OrPTooltipPLabel":                            {nil, "hand-named union in gopls: ours is " + reflect.TypeFor[protocol.StringOrMarkupContent]().Name()},
		"OrPTooltip_textDocument_inlayHint":           {nil, "hand-named union in gopls: ours is " + reflect.TypeFor[protocol.StringOrMarkupContent]().Name()},
	}
	// memberNotes explain members that only one side has.
	memberNotes := []struct {
		member    string
		onlyGopls bool
		why       string
	}{
		{"range", true, "gopls hand-adds range to TextDocumentPositionParams for its own range extensions; every params type extending it inherits it"},
		{"markupMessageSupport", false, "3.18.0 added DiagnosticClientCapabilities.markupMessageSupport after the model revision gopls v0.23.0 generated from"},
	}
	explainedMember := func(member string, onlyGopls bool) bool {
		for _, n := range memberNotes {
			if n.member == member && n.onlyGopls == onlyGopls {
				return true
			}
		}
		return false
	}
	var names []string
	for n := range gopls {
		names = append(names, n)
	}
	sort.Strings(names)
	matched, unions := 0, 0
	for _, n := range names {
		typ, ok := ours[n]
		if !ok {
			typ, ok = protocol.LookupType(n) // gopls kept the model's spelling
		}
		if e, isExplained := explained[n]; isExplained {
			typ, ok = e.ours, e.ours != nil
		}
		if ok && typ.Kind() == reflect.Struct {
			onlyOurs, onlyGopls := setDiff(jsonNames(typ), gopls[n])
			for _, m := range onlyOurs {
				if !explainedMember(m, false) {
					t.Errorf("%s: member %q is ours only (unexplained)", n, m)
				}
			}
			for _, m := range onlyGopls {
				if !explainedMember(m, true) {
					t.Errorf("%s: member %q is gopls's only (unexplained)", n, m)
				}
			}
			matched++
			continue
		}
		if _, isExplained := explained[n]; isExplained {
			continue
		}
		if rest, ok := strings.CutPrefix(n, "Or_"); ok {
			if !goplsUnionMaps(t, rest) {
				t.Errorf("%s: no generated union at the same place", n)
			}
			unions++
			continue
		}
		t.Errorf("gopls struct %s has no counterpart and no explanation", n)
	}
	t.Logf("%d structs with identical JSON names, %d gopls union wrappers mapped to ours, %d explained", matched, unions, len(explained))
	if matched < 380 || unions < 60 {
		t.Fatalf("too few matches: %d structs, %d unions", matched, unions)
	}
}

// setDiff returns the members only in a and only in b.
func setDiff(a, b []string) (onlyA, onlyB []string) {
	inA, inB := map[string]bool{}, map[string]bool{}
	for _, x := range a {
		inA[x] = true
	}
	for _, x := range b {
		inB[x] = true
	}
	for _, x := range a {
		if !inB[x] {
			onlyA = append(onlyA, x)
		}
	}
	for _, x := range b {
		if !inA[x] {
			onlyB = append(onlyB, x)
		}
	}
	return onlyA, onlyB
}

// goplsUnionMaps resolves a gopls union name (Struct_prop[_Elem|_Value],
// Alias, Result_method_..., or method) to a place in our types and reports
// whether a union is there.
func goplsUnionMaps(t *testing.T, name string) bool {
	for _, suf := range []string{"_Item0_Elem", "_Elem", "_Value"} {
		name = strings.TrimSuffix(name, suf)
	}
	if method, ok := strings.CutPrefix(name, "Result_"); ok {
		info, ok := protocol.LookupMethod(strings.ReplaceAll(method, "_", "/"))
		return ok && isUnion(info.Result)
	}
	parts := strings.SplitN(name, "_", 2)
	if info, ok := protocol.LookupMethod(strings.ReplaceAll(name, "_", "/")); ok {
		return isUnion(info.Result)
	}
	typ, ok := protocol.LookupType(parts[0])
	if !ok {
		return false
	}
	if len(parts) == 1 {
		return isUnion(typ)
	}
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		if n, _, _ := strings.Cut(f.Tag.Get("json"), ","); n == parts[1] {
			return isUnion(f.Type)
		}
	}
	return false
}
