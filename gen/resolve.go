package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// handWritten are the exported names of the protocol package's hand-written
// files; generated names must not collide with them.
var handWritten = []string{
	"Nullable", "NewNullable", "Null", "NullResult", "NoParams", "Ptr", "DecodeError",
	"URI", "DocumentURI", "FileURI", "MessageDirection",
	"ClientToServer", "ServerToClient", "BothDirections", "MethodInfo", "RequestType",
	"NotificationType", "LookupMethod", "Methods", "LookupType", "ModelTypeNames",
	"Server", "Client", "UnimplementedServer", "UnimplementedClient", "DispatchServer",
	"DispatchClient", "DecodeServerParams", "DecodeClientParams", "CallServer", "CallClient",
	"ModelVersion", "Conn", "SyntaxError",
	"Validator", "NewValidator", "Problem", "Part", "PartParams", "PartResult", "PartPartialResult",
	"PartErrorData", "PartRegistrationOptions", "ErrUnknownMethod", "ErrNoPart",
}

// rawNames are the model aliases that stay raw JSON (jsontext.Value).
var rawNames = map[string]bool{"LSPAny": true, "LSPObject": true, "LSPArray": true}

// resolver turns the model into declarations.
type resolver struct {
	m       *model
	decls   []*decl
	byModel map[string]*decl  // model type name -> its declaration
	taken   map[string]string // Go name -> what took it
	structs map[string]*structure
	aliases map[string]*typeAlias

	methodParts map[*method]mpart
	owners      map[*property]string // property -> Go name of the structure defining it

	unionUses map[string]int   // anonymous union key -> occurrences in the model
	unions    map[string]*decl // anonymous union key -> declaration
	literals  map[string]*decl // literal structure key -> declaration
	constants map[string]*decl // literal value -> declaration
	props     map[*property]*gtype
	flat      map[string][]*property
}

func resolve(m *model) (*resolver, error) {
	r := &resolver{
		m: m, byModel: map[string]*decl{}, taken: map[string]string{}, structs: map[string]*structure{}, aliases: map[string]*typeAlias{}, methodParts: map[*method]mpart{},
		unionUses: map[string]int{}, unions: map[string]*decl{}, literals: map[string]*decl{},
		constants: map[string]*decl{}, props: map[*property]*gtype{}, flat: map[string][]*property{},
	}
	for _, n := range handWritten {
		r.taken[n] = "a hand-written declaration"
	}
	// Phase 1: a declaration for every named model type, so references resolve.
	for _, s := range m.Structures {
		r.structs[s.Name] = s
		if err := r.declare(&decl{kind: dStruct, name: goName(s.Name), modelName: s.Name, doc: s.docs}); err != nil {
			return nil, err
		}
	}
	for _, e := range m.Enumerations {
		if err := r.declare(&decl{kind: dEnum, name: goName(e.Name), modelName: e.Name, doc: e.docs, enum: e}); err != nil {
			return nil, err
		}
	}
	for _, a := range m.TypeAliases {
		r.aliases[a.Name] = a
		if err := r.declare(&decl{kind: dDefined, name: goName(a.Name), modelName: a.Name, doc: a.docs}); err != nil {
			return nil, err
		}
	}
	r.countUnions()
	// Phase 2: fill them in, creating unions and literals as they appear.
	for _, a := range m.TypeAliases {
		if err := r.alias(a); err != nil {
			return nil, err
		}
	}
	for _, s := range m.Structures {
		fields, err := r.fields(s.Name, r.flatten(s))
		if err != nil {
			return nil, err
		}
		r.byModel[s.Name].fields = fields
	}
	for _, me := range append(append([]*method(nil), m.Requests...), m.Notifications...) {
		var mp mpart
		for _, part := range me.parts() {
			g, err := r.resolve(part.t, me.baseName()+part.suffix)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", me.Method, part.name, err)
			}
			*map[string]**gtype{"params": &mp.params, "result": &mp.result, "partialResult": &mp.partial,
				"registrationOptions": &mp.regOpts, "errorData": &mp.errData}[part.name] = g
		}
		r.methodParts[me] = mp
	}
	if err := r.claimNames(); err != nil {
		return nil, err
	}
	return r, nil
}

// claimNames reserves every other top-level name the emitter will write
// (union kind types and constructors, enumeration constants, method constants
// and descriptors), so that no two generated names can collide.
func (r *resolver) claimNames() error {
	claim := func(name, what string) error {
		if prev, ok := r.taken[name]; ok {
			return fmt.Errorf("the Go name %s of %s is already used by %s", name, what, prev)
		}
		r.taken[name] = what
		return nil
	}
	for _, d := range r.decls {
		switch d.kind {
		case dUnion:
			d.kindName = r.freeName(d.name+"Kind", "Alt")
			names := []string{d.kindName, d.kindName + "None"}
			for _, a := range d.alts {
				names = append(names, d.kindName+a.suffix, "New"+d.name+a.suffix)
			}
			for _, n := range names {
				if err := claim(n, "union "+d.name); err != nil {
					return err
				}
			}
		case dEnum:
			for _, v := range d.enum.Values {
				if err := claim(d.name+goName(v.Name), "enumeration "+d.name); err != nil {
					return err
				}
			}
		}
	}
	for _, me := range append(append([]*method(nil), r.m.Requests...), r.m.Notifications...) {
		if err := claim("Method"+goName(me.Method), "method "+me.Method); err != nil {
			return err
		}
		if err := claim(me.descriptorName(), "method "+me.Method); err != nil {
			return err
		}
	}
	return nil
}

// descriptorName names a method's typed descriptor after the model's
// typeName (HoverRequest, DidOpenTextDocumentNotification), as the reference
// TypeScript implementation does.
func (me *method) descriptorName() string {
	if me.TypeName != "" {
		return goName(me.TypeName)
	}
	if me.notification {
		return goName(me.Method) + "Notification"
	}
	return goName(me.Method) + "Request"
}

// declare registers a declaration under its Go name.
func (r *resolver) declare(d *decl) error {
	if what, ok := r.taken[d.name]; ok {
		return fmt.Errorf("the Go name %s of %q is already used by %s", d.name, d.modelName, what)
	}
	r.taken[d.name] = fmt.Sprintf("%q", d.modelName)
	if d.modelName != "" {
		r.byModel[d.modelName] = d
	}
	r.decls = append(r.decls, d)
	return nil
}

// freeName returns name, or name+suffix, or name+suffix+N: the first not taken.
func (r *resolver) freeName(name, suffix string) string {
	if _, ok := r.taken[name]; !ok {
		return name
	}
	name += suffix
	for i := 2; ; i++ {
		if _, ok := r.taken[name]; !ok {
			return name
		}
		name = strings.TrimRight(name, "0123456789") + strconv.Itoa(i)
	}
}

type methodPart struct {
	name, suffix string
	t            *mtype
}

func (me *method) parts() []methodPart {
	var ps []methodPart
	for _, p := range []methodPart{
		{"params", "Params", me.Params}, {"result", "Result", me.Result},
		{"partialResult", "PartialResult", me.PartialResult},
		{"registrationOptions", "RegistrationOptions", me.RegistrationOptions},
		{"errorData", "ErrorData", me.ErrorData},
	} {
		if p.t != nil {
			ps = append(ps, p)
		}
	}
	return ps
}

// baseName names a method's synthesized types: the model's typeName without
// its Request/Notification suffix, or the method name.
func (me *method) baseName() string {
	if me.TypeName != "" {
		return goName(trimSuffixes(me.TypeName, "Request", "Notification"))
	}
	return goName(me.Method)
}

// flatten returns a structure's properties with extends and mixins copied in:
// inherited first, in order, then its own; a redefinition replaces the
// inherited property in place.
func (r *resolver) flatten(s *structure) []*property {
	if f, ok := r.flat[s.Name]; ok {
		return f
	}
	var out []*property
	idx := map[string]int{}
	add := func(p *property) {
		if i, ok := idx[p.Name]; ok {
			out[i] = p
			return
		}
		idx[p.Name] = len(out)
		out = append(out, p)
	}
	for _, t := range append(append([]*mtype(nil), s.Extends...), s.Mixins...) {
		for _, p := range r.flatten(r.structs[t.Name]) {
			add(p)
		}
	}
	for _, p := range s.Properties {
		add(p)
	}
	r.flat[s.Name] = out
	return out
}

// owner finds the structure that defines p, so its synthesized types are named
// after the definition and not after every structure inheriting it.
func (r *resolver) owner(p *property, fallback string) string {
	if r.owners == nil {
		r.owners = map[*property]string{}
		for _, s := range r.m.Structures {
			for _, q := range s.Properties {
				r.owners[q] = goName(s.Name)
			}
		}
	}
	if o, ok := r.owners[p]; ok {
		return o
	}
	return fallback
}

// fields resolves flattened properties into struct fields.
func (r *resolver) fields(ctx string, props []*property) ([]*field, error) {
	var out []*field
	for _, p := range props {
		g, ok := r.props[p]
		if !ok {
			var err error
			g, err = r.resolve(p.Type, r.owner(p, ctx)+goName(p.Name))
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", ctx, p.Name, err)
			}
			r.props[p] = g
		}
		f := &field{goName: goName(p.Name), jsonName: p.Name, typ: g, optional: p.Optional, nullable: g.kind == gkNullable, doc: p.docs}
		absent, err := r.zeroIsAbsent(g)
		if err != nil {
			return nil, err
		}
		if p.Optional && !absent {
			f.typ = &gtype{kind: gkPointer, elem: g}
		}
		out = append(out, f)
	}
	return out, nil
}

// zeroIsAbsent reports whether the zero value of g can stand for an absent
// optional property without a pointer: nil slices, maps and raw JSON, and
// unset unions.
func (r *resolver) zeroIsAbsent(g *gtype) (bool, error) {
	switch g.kind {
	case gkSlice, gkMap, gkRaw:
		return true, nil
	case gkNamed:
		if a, ok := r.aliases[g.decl.modelName]; ok {
			if err := r.alias(a); err != nil {
				return false, err
			}
		}
		switch g.decl.kind {
		case dUnion:
			return true, nil
		case dDefined, dAlias:
			return r.zeroIsAbsent(g.decl.under)
		}
	}
	return false, nil
}

// alias resolves a type alias once; structures may need it before its turn.
func (r *resolver) alias(a *typeAlias) error {
	d := r.byModel[a.Name]
	if d.resolved {
		return nil
	}
	d.resolved = true
	if rawNames[a.Name] {
		d.kind, d.under, d.raw = dAlias, &gtype{kind: gkRaw}, true
		return nil
	}
	if a.Type.Kind == "or" {
		items, nullable := stripNull(a.Type.Items)
		if len(items) > 1 && !nullable && !allStringLiterals(items) {
			return r.fillUnion(d, items)
		}
	}
	g, err := r.resolve(a.Type, d.name)
	if err != nil {
		return fmt.Errorf("typeAlias %s: %w", a.Name, err)
	}
	d.under = g
	if a.Type.Kind == "reference" {
		d.kind = dAlias // keep the referenced type's methods
	}
	return nil
}

func stripNull(items []*mtype) ([]*mtype, bool) {
	var out []*mtype
	nullable := false
	for _, it := range items {
		if it.Kind == "base" && it.Name == "null" {
			nullable = true
			continue
		}
		out = append(out, it)
	}
	return out, nullable
}

func allStringLiterals(items []*mtype) bool {
	for _, it := range items {
		if it.Kind != "stringLiteral" {
			return false
		}
	}
	return true
}

var basics = map[string]string{"string": "string", "RegExp": "string", "integer": "int32", "uinteger": "uint32", "decimal": "float64", "boolean": "bool"}

// resolve maps a type expression to Go. ctx names anything it must synthesize.
func (r *resolver) resolve(t *mtype, ctx string) (*gtype, error) {
	switch t.Kind {
	case "base":
		switch t.Name {
		case "URI", "DocumentUri":
			return &gtype{kind: gkNamed, decl: r.external(goName(t.Name)), model: t.Name}, nil
		case "null":
			// Only a result can be plain null (shutdown's); NullResult stands for it.
			return &gtype{kind: gkBasic, basic: "NullResult", model: "null"}, nil
		}
		return &gtype{kind: gkBasic, basic: basics[t.Name], model: t.Name}, nil
	case "reference":
		d := r.byModel[t.Name]
		if d.raw {
			return &gtype{kind: gkRaw}, nil
		}
		return &gtype{kind: gkNamed, decl: d}, nil
	case "array":
		e, err := r.resolve(t.Element, ctx+"Elem")
		if err != nil {
			return nil, err
		}
		return &gtype{kind: gkSlice, elem: e}, nil
	case "map":
		k, err := r.resolve(t.Key, ctx+"Key")
		if err != nil {
			return nil, err
		}
		v, err := r.resolve(t.mapValue, ctx+"Value")
		if err != nil {
			return nil, err
		}
		return &gtype{kind: gkMap, key: k, elem: v}, nil
	case "tuple":
		for _, it := range t.Items[1:] {
			if typeKey(it) != typeKey(t.Items[0]) {
				return nil, fmt.Errorf("tuple %s: only tuples of one element type are supported", typeKey(t))
			}
		}
		e, err := r.resolve(t.Items[0], ctx+"Item")
		if err != nil {
			return nil, err
		}
		return &gtype{kind: gkArray, elem: e, n: len(t.Items)}, nil
	case "and":
		name := r.freeName(ctx, "Type")
		d := &decl{kind: dStruct, name: name, usedBy: []string{ctx}}
		var props []*property
		for _, it := range t.Items {
			props = append(props, r.flatten(r.structs[it.Name])...)
		}
		if err := r.declare(d); err != nil {
			return nil, err
		}
		d.doc.Documentation = "The intersection " + typeKey(t) + "."
		fields, err := r.fields(name, props)
		if err != nil {
			return nil, err
		}
		d.fields = fields
		return &gtype{kind: gkNamed, decl: d}, nil
	case "literal":
		return r.literal(t, ctx)
	case "stringLiteral", "integerLiteral", "booleanLiteral":
		return &gtype{kind: gkNamed, decl: r.constant(t)}, nil
	case "or":
		items, nullable := stripNull(t.Items)
		var g *gtype
		switch {
		case len(items) == 0:
			return nil, fmt.Errorf("union of only null")
		case len(items) == 1:
			var err error
			if g, err = r.resolve(items[0], ctx); err != nil {
				return nil, err
			}
		case allStringLiterals(items):
			d, err := r.stringEnum(items, ctx)
			if err != nil {
				return nil, err
			}
			g = &gtype{kind: gkNamed, decl: d}
		default:
			d, err := r.anonymousUnion(items, ctx)
			if err != nil {
				return nil, err
			}
			g = &gtype{kind: gkNamed, decl: d}
		}
		if nullable && g.kind != gkRaw {
			g = &gtype{kind: gkNullable, elem: g}
		}
		return g, nil
	}
	return nil, fmt.Errorf("unsupported type kind %q", t.Kind)
}

// external returns the declaration of a hand-written type.
func (r *resolver) external(name string) *decl {
	if d, ok := r.byModel["$"+name]; ok {
		return d
	}
	d := &decl{kind: dExternal, name: name, under: &gtype{kind: gkBasic, basic: "string"}}
	r.byModel["$"+name] = d
	return d
}

// literal declares (or reuses) a struct for an anonymous literal type.
func (r *resolver) literal(t *mtype, ctx string) (*gtype, error) {
	key := typeKey(t)
	if d, ok := r.literals[key]; ok {
		d.usedBy = append(d.usedBy, ctx)
		return &gtype{kind: gkNamed, decl: d}, nil
	}
	name := ctx
	if len(t.literal) == 0 {
		name = "EmptyObject"
	}
	d := &decl{kind: dStruct, name: r.freeName(name, "Literal"), usedBy: []string{ctx}}
	if len(t.literal) == 0 {
		d.doc.Documentation = "EmptyObject is the empty object literal {}."
	}
	if err := r.declare(d); err != nil {
		return nil, err
	}
	r.literals[key] = d
	fields, err := r.fields(d.name, t.literal)
	if err != nil {
		return nil, err
	}
	d.fields = fields
	return &gtype{kind: gkNamed, decl: d}, nil
}

// constant declares (or reuses) the zero-size type of a literal value.
func (r *resolver) constant(t *mtype) *decl {
	var lit string
	switch t.Kind {
	case "stringLiteral":
		lit = strconv.Quote(t.str)
	case "integerLiteral":
		lit = strconv.FormatInt(t.num, 10)
	default:
		lit = strconv.FormatBool(t.boolean)
	}
	if d, ok := r.constants[lit]; ok {
		return d
	}
	d := &decl{kind: dLiteral, name: r.freeName("Literal"+goName(strings.Trim(lit, `"`)), "Value"), lit: lit}
	d.doc.Documentation = "The literal " + lit + ": it encodes as that value and decodes only from it."
	_ = r.declare(d) // freeName made the name free
	r.constants[lit] = d
	return d
}

// stringEnum declares a union of string literals as a closed string enumeration.
func (r *resolver) stringEnum(items []*mtype, ctx string) (*decl, error) {
	e := &enumeration{Name: ctx, Type: &mtype{Kind: "base", Name: "string"}}
	for _, it := range items {
		e.Values = append(e.Values, &enumValue{Name: it.str, Value: []byte(strconv.Quote(it.str))})
	}
	d := &decl{kind: dEnum, name: r.freeName(ctx, "Enum"), enum: e, usedBy: []string{ctx}}
	return d, r.declare(d)
}

// anonymousUnion declares (or reuses) the union of items. A set of
// alternatives that occurs once is named after where it occurs; one that
// occurs in several places is named after its alternatives.
func (r *resolver) anonymousUnion(items []*mtype, ctx string) (*decl, error) {
	key := unionKey(items)
	if d, ok := r.unions[key]; ok {
		d.usedBy = append(d.usedBy, ctx)
		return d, nil
	}
	d := &decl{kind: dUnion, usedBy: []string{ctx}}
	r.unions[key] = d
	if err := r.fillUnion(d, items); err != nil {
		return nil, err
	}
	name := ctx
	if r.unionUses[key] > 1 {
		var parts []string
		for _, a := range d.alts {
			parts = append(parts, a.suffix)
		}
		name = strings.Join(parts, "Or")
	}
	d.name = r.freeName(name, "Union")
	return d, r.declare(d)
}

// fillUnion resolves a union's alternatives.
func (r *resolver) fillUnion(d *decl, items []*mtype) error {
	d.kind = dUnion
	seen := map[string]bool{}
	for i, it := range items {
		base := d.name
		if base == "" {
			base = d.usedBy[0]
		}
		g, err := r.resolve(it, base+"Alt"+strconv.Itoa(i))
		if err != nil {
			return err
		}
		s := altSuffix(g)
		if seen[s] {
			s += strconv.Itoa(i)
		}
		seen[s] = true
		d.alts = append(d.alts, &alt{suffix: s, typ: g})
	}
	return nil
}

// altSuffix names an alternative after its type.
func altSuffix(g *gtype) string {
	switch g.kind {
	case gkBasic:
		return goName(g.model)
	case gkNamed:
		if g.model != "" {
			return goName(g.model)
		}
		return g.decl.name
	case gkSlice:
		return altSuffix(g.elem) + "Slice"
	case gkArray:
		return altSuffix(g.elem) + "Tuple"
	case gkMap:
		return altSuffix(g.elem) + "Map"
	case gkNullable:
		return "Nullable" + altSuffix(g.elem)
	case gkRaw:
		return "LSPAny"
	}
	return "Value"
}

// typeKey is a canonical spelling of a type expression.
func typeKey(t *mtype) string {
	switch t.Kind {
	case "base", "reference":
		return t.Name
	case "array":
		return typeKey(t.Element) + "[]"
	case "map":
		return "map<" + typeKey(t.Key) + "," + typeKey(t.mapValue) + ">"
	case "or", "and", "tuple":
		sep := map[string]string{"or": " | ", "and": " & ", "tuple": ", "}[t.Kind]
		var parts []string
		for _, it := range t.Items {
			parts = append(parts, typeKey(it))
		}
		open, end := "(", ")"
		if t.Kind == "tuple" {
			open, end = "[", "]"
		}
		return open + strings.Join(parts, sep) + end
	case "literal":
		var parts []string
		for _, p := range t.literal {
			opt := ""
			if p.Optional {
				opt = "?"
			}
			parts = append(parts, p.Name+opt+": "+typeKey(p.Type))
		}
		return "{" + strings.Join(parts, "; ") + "}"
	case "stringLiteral":
		return strconv.Quote(t.str)
	case "integerLiteral":
		return strconv.FormatInt(t.num, 10)
	case "booleanLiteral":
		return strconv.FormatBool(t.boolean)
	}
	return t.Kind
}

func unionKey(items []*mtype) string {
	var parts []string
	for _, it := range items {
		parts = append(parts, typeKey(it))
	}
	return strings.Join(parts, " | ")
}

// countUnions counts where each anonymous union occurs in the model, so that
// naming can tell a one-off union from a shared one.
func (r *resolver) countUnions() {
	var walk func(t *mtype, top bool)
	walk = func(t *mtype, top bool) {
		if t == nil {
			return
		}
		switch t.Kind {
		case "or":
			items, _ := stripNull(t.Items)
			if !top && len(items) > 1 && !allStringLiterals(items) {
				r.unionUses[unionKey(items)]++
			}
			for _, it := range t.Items {
				walk(it, false)
			}
		case "and", "tuple":
			for _, it := range t.Items {
				walk(it, false)
			}
		case "array":
			walk(t.Element, false)
		case "map":
			walk(t.mapValue, false)
		case "literal":
			for _, p := range t.literal {
				walk(p.Type, false)
			}
		}
	}
	for _, s := range r.m.Structures {
		for _, p := range s.Properties {
			walk(p.Type, false)
		}
	}
	for _, a := range r.m.TypeAliases {
		walk(a.Type, !rawNames[a.Name]) // an alias's own union is named by the alias
	}
	for _, me := range append(append([]*method(nil), r.m.Requests...), r.m.Notifications...) {
		for _, p := range me.parts() {
			walk(p.t, false)
		}
	}
}

// sortedDecls returns the declarations of one kind, sorted by Go name.
func (r *resolver) sortedDecls(kinds ...declKind) []*decl {
	var out []*decl
	for _, d := range r.decls {
		for _, k := range kinds {
			if d.kind == k {
				out = append(out, d)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
