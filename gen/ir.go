package main

// The generator resolves the meta model into this intermediate form, which
// the emitter turns into Go.

// gkind is the shape of a Go type expression.
type gkind int

const (
	gkBasic    gkind = iota // a predeclared type: string, int32, uint32, float64, bool
	gkNamed                 // a declared type (decl)
	gkSlice                 // []elem
	gkMap                   // map[key]elem
	gkArray                 // [n]elem (a homogeneous tuple)
	gkNullable              // Nullable[elem]
	gkPointer               // *elem (an optional property)
	gkRaw                   // jsontext.Value (LSPAny)
)

// gtype is a Go type expression.
type gtype struct {
	kind  gkind
	basic string // gkBasic
	decl  *decl  // gkNamed
	elem  *gtype // gkSlice, gkMap, gkArray, gkNullable, gkPointer
	key   *gtype // gkMap
	n     int    // gkArray
	model string // gkBasic: the model base type ("integer", "URI", ...)
}

// declKind says what a declaration is.
type declKind int

const (
	dStruct   declKind = iota // a structure, literal or "and" type
	dEnum                     // an enumeration (or a union of string literals)
	dUnion                    // a closed sum type
	dDefined                  // type Name under (an alias of a base, array or map type)
	dAlias                    // type Name = under (an alias of a reference or of raw JSON)
	dLiteral                  // a zero-size type for one string literal value
	dExternal                 // a hand-written type of the protocol package (URI, DocumentURI)
)

// decl is a declared Go type.
type decl struct {
	kind      declKind
	name      string // Go name
	modelName string // the model's name, for the type index ("" if synthesized)
	doc       docs
	usedBy    []string // where a union or literal occurs, for its doc comment

	fields []*field     // dStruct
	enum   *enumeration // dEnum
	alts   []*alt       // dUnion
	under  *gtype       // dDefined, dAlias, dExternal
	lit    string       // dLiteral
	raw    bool         // dAlias of raw JSON

	resolved bool   // a type alias whose type has been resolved
	kindName string // dUnion: the name of its Kind type
}

// field is one property of a flattened structure.
type field struct {
	goName   string
	jsonName string
	typ      *gtype // the full Go type, with optional pointer or Nullable applied
	optional bool
	nullable bool
	doc      docs
}

// alt is one alternative of a union.
type alt struct {
	suffix string // names the alternative in constructors and accessors
	typ    *gtype
}
