package protocol

import (
	"bytes"
	"errors"
	"io"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// The validator checks a JSON value against the meta model's type for it
// and reports every problem with its JSON path — where the generated
// decoders, built for speed, stop at the first. Its tables (schema_gen.go)
// are generated from the same model as the decoders.

// Problem is one way a JSON value does not fit the meta model.
type Problem struct {
	// Path locates the value, from the part checked: "params",
	// "result.items[3].label", "params.diagnostics[0].range.start.line".
	Path string
	// Msg says what is wrong.
	Msg string
	// Extension marks a member the model does not have: a note (servers
	// may send more than the model says), not a violation.
	Extension bool
}

// String is the path and the message.
func (p Problem) String() string { return p.Path + ": " + p.Msg }

// Part names a part of a method's messages.
type Part uint8

// The parts of a method's messages the meta model types.
const (
	PartParams Part = iota + 1
	PartResult
	PartPartialResult
	PartErrorData
	PartRegistrationOptions
)

// String is the part's name in the meta model.
func (p Part) String() string {
	switch p {
	case PartParams:
		return "params"
	case PartResult:
		return "result"
	case PartPartialResult:
		return "partialResult"
	case PartErrorData:
		return "errorData"
	case PartRegistrationOptions:
		return "registrationOptions"
	}
	return "Part(" + strconv.Itoa(int(p)) + ")"
}

// Validator checks JSON values against the meta model. Its methods may be
// called from several goroutines at once.
type Validator struct{ s *schema }

// NewValidator returns a validator for the meta model the package was
// generated from (ModelVersion).
func NewValidator() *Validator {
	s := modelSchema()
	s.prepare()
	return &Validator{s: s}
}

// ErrUnknownMethod is returned by Validator.Check for a method the meta
// model does not have.
var ErrUnknownMethod = errors.New("protocol: not a method of the meta model")

// ErrNoPart is returned by Validator.Check for a part the method does not
// have (params of a method without params, a notification's result).
var ErrNoPart = errors.New("protocol: the method has no such part")

// Check validates raw as part of method's messages (raw nil: the part is
// absent) and returns every problem found, extension members included
// (marked), in document order. Paths begin with the part's name.
func (v *Validator) Check(method string, part Part, raw []byte) ([]Problem, error) {
	m, ok := v.s.methods[method]
	if !ok {
		return nil, ErrUnknownMethod
	}
	var t *schemaType
	switch part {
	case PartParams:
		t = m.params
	case PartResult:
		t = m.result
	case PartPartialResult:
		t = m.partialResult
	case PartErrorData:
		t = m.errorData
	case PartRegistrationOptions:
		t = m.registrationOptions
	}
	if t == nil {
		if part == PartParams && (raw == nil || isNullOrEmpty(raw)) {
			return nil, nil // no params, as the method says
		}
		return nil, ErrNoPart
	}
	if raw == nil {
		if t.admitsNull(v.s) {
			return nil, nil
		}
		return []Problem{{Path: part.String(), Msg: "missing: the method's " + part.String() + " is " + t.describe()}}, nil
	}
	return v.checkValue(t, raw, part.String()), nil
}

// CheckType validates raw as the model type name (a structure,
// enumeration or type alias), paths beginning with path.
func (v *Validator) CheckType(name string, raw []byte, path string) ([]Problem, error) {
	if _, ok := v.s.structs[name]; !ok {
		if _, ok := v.s.enums[name]; !ok {
			if _, ok := v.s.aliases[name]; !ok {
				return nil, errors.New("protocol: " + name + " is not a type of the meta model")
			}
		}
	}
	return v.checkValue(sRef(name), raw, path), nil
}

func (v *Validator) checkValue(t *schemaType, raw []byte, path string) []Problem {
	n, err := parseNode(raw)
	if err != nil {
		return []Problem{{Path: path, Msg: "not valid JSON: " + err.Error()}}
	}
	var c checker
	c.s = v.s
	c.check(t, n, path)
	return c.problems
}

func isNullOrEmpty(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// The tables.

type schemaKind uint8

const (
	skBase schemaKind = iota
	skRef
	skArray
	skMap
	skAnd
	skOr
	skTuple
	skLiteral
	skStringLiteral
	skIntegerLiteral
	skBooleanLiteral
)

// schemaType is a type expression of the model.
type schemaType struct {
	kind  schemaKind
	name  string        // skBase, skRef; the literal value of skStringLiteral
	num   int64         // skIntegerLiteral
	flag  bool          // skBooleanLiteral
	items []*schemaType // skArray (element), skMap (key, value), skAnd, skOr, skTuple
	props []schemaProp  // skLiteral
}

// schemaProp is a property of a structure or literal.
type schemaProp struct {
	name     string
	typ      *schemaType
	optional bool
}

// schemaEnum is an enumeration: its base type, its values as JSON
// literals, and whether other values are allowed.
type schemaEnum struct {
	base   string
	values []string
	custom bool

	strings map[string]bool // string values, unquoted (prepare)
	numbers map[string]bool // number values, as written
}

// schemaMethod is a method's parts and direction.
type schemaMethod struct {
	direction                                                     MessageDirection
	notification                                                  bool
	params, result, partialResult, errorData, registrationOptions *schemaType
}

// schema is the whole model.
type schema struct {
	structs map[string][]schemaProp
	enums   map[string]*schemaEnum
	aliases map[string]*schemaType
	methods map[string]*schemaMethod
}

func newSchema(structs, enums, aliases, methods int) *schema {
	return &schema{
		structs: make(map[string][]schemaProp, structs),
		enums:   make(map[string]*schemaEnum, enums),
		aliases: make(map[string]*schemaType, aliases),
		methods: make(map[string]*schemaMethod, methods),
	}
}

// prepare indexes the enumerations' values.
func (s *schema) prepare() {
	for _, e := range s.enums {
		e.strings, e.numbers = map[string]bool{}, map[string]bool{}
		for _, v := range e.values {
			if strings.HasPrefix(v, `"`) {
				u, err := strconv.Unquote(v)
				if err == nil {
					e.strings[u] = true
				}
				continue
			}
			e.numbers[v] = true
		}
	}
}

func sBase(name string) *schemaType { return &schemaType{kind: skBase, name: name} }
func sRef(name string) *schemaType  { return &schemaType{kind: skRef, name: name} }
func sArray(elem *schemaType) *schemaType {
	return &schemaType{kind: skArray, items: []*schemaType{elem}}
}
func sMap(key, value *schemaType) *schemaType {
	return &schemaType{kind: skMap, items: []*schemaType{key, value}}
}
func sAnd(items ...*schemaType) *schemaType   { return &schemaType{kind: skAnd, items: items} }
func sOr(items ...*schemaType) *schemaType    { return &schemaType{kind: skOr, items: items} }
func sTuple(items ...*schemaType) *schemaType { return &schemaType{kind: skTuple, items: items} }
func sLiteral(props ...schemaProp) *schemaType {
	return &schemaType{kind: skLiteral, props: props}
}
func sStringLiteral(v string) *schemaType { return &schemaType{kind: skStringLiteral, name: v} }

//lint:ignore U1000 used by tables of models with integer literal types
func sIntegerLiteral(v int64) *schemaType { return &schemaType{kind: skIntegerLiteral, num: v} }

//lint:ignore U1000 used by tables of models with boolean literal types
func sBooleanLiteral(v bool) *schemaType { return &schemaType{kind: skBooleanLiteral, flag: v} }
func sProp(name string, t *schemaType, optional bool) schemaProp {
	return schemaProp{name: name, typ: t, optional: optional}
}

// rawAliases accept any JSON value of their kind without looking inside.
var rawAliases = map[string]jsontext.Kind{"LSPAny": 0, "LSPObject": '{', "LSPArray": '['}

// admitsNull reports whether null is a value of t.
func (t *schemaType) admitsNull(s *schema) bool {
	switch t.kind {
	case skBase:
		return t.name == "null"
	case skRef:
		if k, ok := rawAliases[t.name]; ok {
			return k == 0
		}
		if a, ok := s.aliases[t.name]; ok {
			return a.admitsNull(s)
		}
	case skOr:
		for _, it := range t.items {
			if it.admitsNull(s) {
				return true
			}
		}
	}
	return false
}

// describe names t as the model writes it.
func (t *schemaType) describe() string {
	switch t.kind {
	case skBase, skRef:
		return t.name
	case skArray:
		inner := t.items[0].describe()
		if t.items[0].kind == skOr {
			inner = "(" + inner + ")"
		}
		return inner + "[]"
	case skMap:
		return "{ [key: " + t.items[0].describe() + "]: " + t.items[1].describe() + " }"
	case skAnd, skOr, skTuple:
		sep := map[schemaKind]string{skAnd: " & ", skOr: " | ", skTuple: ", "}[t.kind]
		var parts []string
		for _, it := range t.items {
			parts = append(parts, it.describe())
		}
		if t.kind == skTuple {
			return "[" + strings.Join(parts, sep) + "]"
		}
		return strings.Join(parts, sep)
	case skLiteral:
		var names []string
		for _, p := range t.props {
			n := p.name
			if p.optional {
				n += "?"
			}
			names = append(names, n)
		}
		return "{ " + strings.Join(names, ", ") + " }"
	case skStringLiteral:
		return strconv.Quote(t.name)
	case skIntegerLiteral:
		return strconv.FormatInt(t.num, 10)
	case skBooleanLiteral:
		return strconv.FormatBool(t.flag)
	}
	return "?"
}

// The JSON tree the checker walks.

type node struct {
	kind    jsontext.Kind // n t f " 0 { [
	text    string        // strings (unquoted) and numbers (as written)
	members []member
	elems   []*node
}

type member struct {
	name string
	val  *node
}

func parseNode(raw []byte) (*node, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	n, err := readNode(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, errors.New("data after the value")
	}
	return n, nil
}

func readNode(dec *jsontext.Decoder) (*node, error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	n := &node{kind: tok.Kind()}
	switch n.kind {
	case '"':
		n.text = tok.String()
	case '0':
		n.text = tok.String()
	case '{':
		for dec.PeekKind() != '}' {
			tok, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			name := tok.String() // before the next read voids the token
			val, err := readNode(dec)
			if err != nil {
				return nil, err
			}
			n.members = append(n.members, member{name: name, val: val})
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
	case '[':
		for dec.PeekKind() != ']' {
			val, err := readNode(dec)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, val)
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// kindName names a node's kind for messages.
func (n *node) kindName() string { return kindName(n.kind) }

// checker collects the problems of one value.
type checker struct {
	s        *schema
	problems []Problem
}

func (c *checker) add(path, msg string) {
	c.problems = append(c.problems, Problem{Path: path, Msg: msg})
}

// check validates n as t at path.
func (c *checker) check(t *schemaType, n *node, path string) {
	switch t.kind {
	case skBase:
		c.base(t.name, n, path)
	case skRef:
		c.ref(t.name, n, path)
	case skArray:
		if n.kind != '[' {
			c.add(path, "expected "+t.describe()+" (an array), got "+n.kindName())
			return
		}
		for i, e := range n.elems {
			c.check(t.items[0], e, path+"["+strconv.Itoa(i)+"]")
		}
	case skMap:
		if n.kind != '{' {
			c.add(path, "expected "+t.describe()+" (an object), got "+n.kindName())
			return
		}
		for _, m := range n.members {
			c.check(t.items[1], m.val, memberPath(path, m.name))
		}
	case skAnd:
		var props []schemaProp
		for _, it := range t.items {
			props = append(props, c.s.propsOf(it)...)
		}
		c.object(t.describe(), props, n, path)
	case skOr:
		c.or(t, n, path)
	case skTuple:
		if n.kind != '[' || len(n.elems) != len(t.items) {
			c.add(path, "expected "+t.describe()+" (an array of "+strconv.Itoa(len(t.items))+"), got "+describeNode(n))
			return
		}
		for i, it := range t.items {
			c.check(it, n.elems[i], path+"["+strconv.Itoa(i)+"]")
		}
	case skLiteral:
		c.object(t.describe(), t.props, n, path)
	case skStringLiteral:
		if n.kind != '"' || n.text != t.name {
			c.add(path, "expected "+t.describe()+", got "+describeNode(n))
		}
	case skIntegerLiteral:
		if n.kind != '0' || n.text != strconv.FormatInt(t.num, 10) {
			c.add(path, "expected "+t.describe()+", got "+describeNode(n))
		}
	case skBooleanLiteral:
		if want := map[bool]jsontext.Kind{true: 't', false: 'f'}[t.flag]; n.kind != want {
			c.add(path, "expected "+t.describe()+", got "+describeNode(n))
		}
	}
}

// propsOf returns the properties of a structure reference (or literal).
func (s *schema) propsOf(t *schemaType) []schemaProp {
	switch t.kind {
	case skRef:
		if p, ok := s.structs[t.name]; ok {
			return p
		}
		if a, ok := s.aliases[t.name]; ok {
			return s.propsOf(a)
		}
	case skLiteral:
		return t.props
	}
	return nil
}

// base validates a base type.
func (c *checker) base(name string, n *node, path string) {
	want := map[string]jsontext.Kind{"string": '"', "URI": '"', "DocumentUri": '"', "RegExp": '"', "integer": '0', "uinteger": '0', "decimal": '0', "boolean": 't', "null": 'n'}[name]
	got := n.kind
	if got == 'f' {
		got = 't'
	}
	if got != want {
		c.add(path, "expected "+name+", got "+describeNode(n))
		return
	}
	switch name {
	case "integer", "uinteger":
		lo, hi := int64(-1<<31), int64(1<<31-1)
		if name == "uinteger" {
			lo = 0
		}
		r, ok := new(big.Rat).SetString(n.text)
		switch {
		case !ok || !r.IsInt():
			c.add(path, "expected "+name+", got the number "+n.text)
		case r.Num().Cmp(big.NewInt(lo)) < 0 || r.Num().Cmp(big.NewInt(hi)) > 0:
			c.add(path, name+" out of range ["+strconv.FormatInt(lo, 10)+", "+strconv.FormatInt(hi, 10)+"]: "+n.text)
		}
	case "URI", "DocumentUri":
		if !hasScheme(n.text) {
			c.add(path, "expected a "+name+" (with a scheme), got "+strconv.Quote(trim(n.text)))
		}
	}
}

// hasScheme reports whether s starts with a URI scheme and a colon.
func hasScheme(s string) bool {
	i := strings.IndexByte(s, ':')
	if i < 1 {
		return false
	}
	for j, r := range s[:i] {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || j > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')
		if !ok {
			return false
		}
	}
	return true
}

// ref validates a reference to a structure, enumeration or alias.
func (c *checker) ref(name string, n *node, path string) {
	if k, ok := rawAliases[name]; ok {
		if k != 0 && n.kind != k {
			c.add(path, "expected "+name+" (an "+kindName(k)+"), got "+n.kindName())
		}
		return
	}
	if props, ok := c.s.structs[name]; ok {
		c.object(name, props, n, path)
		return
	}
	if e, ok := c.s.enums[name]; ok {
		c.enum(name, e, n, path)
		return
	}
	if a, ok := c.s.aliases[name]; ok {
		c.check(a, n, path)
		return
	}
	c.add(path, "the model has no type "+name)
}

func (c *checker) enum(name string, e *schemaEnum, n *node, path string) {
	before := len(c.problems)
	c.base(e.base, n, path)
	if len(c.problems) > before || e.custom {
		return
	}
	if n.kind == '"' && !e.strings[n.text] || n.kind == '0' && !e.numbers[n.text] {
		c.add(path, describeNode(n)+" is not a value of the closed enumeration "+name+" ("+strings.Join(e.values, ", ")+")")
	}
}

// object validates an object with props: required members present and not
// null, optional members not null unless their type admits it, each value
// of its type; members the model does not have are notes.
func (c *checker) object(what string, props []schemaProp, n *node, path string) {
	if n.kind != '{' {
		c.add(path, "expected "+what+" (an object), got "+describeNode(n))
		return
	}
	for _, p := range props {
		i := slices.IndexFunc(n.members, func(m member) bool { return m.name == p.name })
		mp := memberPath(path, p.name)
		if i < 0 {
			if !p.optional {
				c.add(mp, "missing required member of "+what+" ("+p.typ.describe()+")")
			}
			continue
		}
		v := n.members[i].val
		if v.kind == 'n' && !p.typ.admitsNull(c.s) {
			if p.optional {
				c.add(mp, "null is not allowed (an optional member of "+what+" is omitted, not null)")
			} else {
				c.add(mp, "null is not allowed (a required member of "+what+", "+p.typ.describe()+")")
			}
			continue
		}
		c.check(p.typ, v, mp)
	}
	for _, m := range n.members {
		if !slices.ContainsFunc(props, func(p schemaProp) bool { return p.name == m.name }) {
			c.problems = append(c.problems, Problem{Path: memberPath(path, m.name), Msg: "not a member of " + what + " in the model", Extension: true})
		}
	}
}

// or validates a union: the value must fit an alternative. Of the
// alternatives it fits, the one with the fewest extension members is taken
// (the most specific); when it fits none, the problems are those of the
// closest alternative of the value's kind, named.
func (c *checker) or(t *schemaType, n *node, path string) {
	var best, closest []Problem
	bestExt, closestErrs := -1, -1
	closestAlt := ""
	for _, it := range t.items {
		sub := checker{s: c.s}
		sub.check(it, n, path)
		errs, ext := 0, 0
		for _, p := range sub.problems {
			if p.Extension {
				ext++
			} else {
				errs++
			}
		}
		if errs == 0 {
			if bestExt < 0 || ext < bestExt {
				best, bestExt = sub.problems, ext
			}
			continue
		}
		if it.accepts(c.s, n.kind) && (closestErrs < 0 || errs < closestErrs) {
			closest, closestErrs, closestAlt = sub.problems, errs, it.describe()
		}
	}
	if bestExt >= 0 {
		c.problems = append(c.problems, best...)
		return
	}
	if closestErrs < 0 {
		c.add(path, "expected "+t.describe()+", got "+describeNode(n))
		return
	}
	for _, p := range closest {
		if !p.Extension {
			p.Msg += " (as " + closestAlt + ", the closest alternative of " + t.describe() + ")"
		}
		c.problems = append(c.problems, p)
	}
}

// accepts reports whether t has values of JSON kind k.
func (t *schemaType) accepts(s *schema, k jsontext.Kind) bool {
	if k == 'f' {
		k = 't'
	}
	switch t.kind {
	case skBase:
		return map[string]jsontext.Kind{"string": '"', "URI": '"', "DocumentUri": '"', "RegExp": '"', "integer": '0', "uinteger": '0', "decimal": '0', "boolean": 't', "null": 'n'}[t.name] == k
	case skRef:
		if rk, ok := rawAliases[t.name]; ok {
			return rk == 0 || rk == k
		}
		if _, ok := s.structs[t.name]; ok {
			return k == '{'
		}
		if e, ok := s.enums[t.name]; ok {
			return sBase(e.base).accepts(s, k)
		}
		if a, ok := s.aliases[t.name]; ok {
			return a.accepts(s, k)
		}
	case skArray, skTuple:
		return k == '['
	case skMap, skAnd, skLiteral:
		return k == '{'
	case skOr:
		for _, it := range t.items {
			if it.accepts(s, k) {
				return true
			}
		}
	case skStringLiteral:
		return k == '"'
	case skIntegerLiteral:
		return k == '0'
	case skBooleanLiteral:
		return k == 't'
	}
	return false
}

// memberPath appends a member name to a path.
func memberPath(path, name string) string {
	if name != "" && strings.IndexFunc(name, func(r rune) bool {
		return !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0 {
		return path + "." + name
	}
	return path + "[" + strconv.Quote(name) + "]"
}

// describeNode names a value briefly: its kind, and short scalars.
func describeNode(n *node) string {
	switch n.kind {
	case '"':
		return "the string " + strconv.Quote(trim(n.text))
	case '0':
		return "the number " + n.text
	case 't':
		return "true"
	case 'f':
		return "false"
	case 'n':
		return "null"
	case '[':
		return "an array of " + strconv.Itoa(len(n.elems))
	}
	return "an " + n.kindName()
}

// trim shortens long strings for messages.
func trim(s string) string {
	if len(s) > 60 {
		return s[:57] + "…"
	}
	return s
}
