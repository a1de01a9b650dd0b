package main

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// The generated types decode with the protocol package's hand-written byte
// decoder (protocol/decoder.go), not by reflection: every named type gets a
// decodeFrom method, and every other type expression a function of the form
// func(*T, *decoder) error composed from the package's generic helpers.

// describeType is a short name of a type expression for error messages.
func describeType(g *gtype) string {
	switch g.kind {
	case gkBasic:
		return g.basic
	case gkNamed:
		return g.decl.name
	case gkSlice:
		return describeType(g.elem) + "[]"
	case gkMap:
		return "map of " + describeType(g.elem)
	case gkArray:
		return fmt.Sprintf("[%d]%s", g.n, describeType(g.elem))
	case gkNullable, gkPointer:
		return describeType(g.elem)
	case gkRaw:
		return "LSPAny"
	}
	return "value"
}

// basicDecoders name the helpers that decode a predeclared type.
var basicDecoders = map[string]string{
	"string": "decodeStringInto", "bool": "decodeBoolInto", "int32": "decodeInt32Into",
	"uint32": "decodeUint32Into", "float64": "decodeFloat64Into",
}

// scalarReaders name the decoder methods that read a predeclared type.
var scalarReaders = map[string]string{
	"string": "readString", "bool": "readBool", "int32": "readInt32", "uint32": "readUint32", "float64": "readFloat64",
}

// decodeFunc is an expression of type func(*T, *decoder) error decoding g.
func decodeFunc(g *gtype) *jen.Statement {
	v := jen.Id("v")
	dd := jen.Id("d").Op("*").Id("decoder")
	wrap := func(call *jen.Statement) *jen.Statement {
		return jen.Func().Params(jen.Id("v").Op("*").Add(goType(g)), dd).Error().Block(jen.Return(call))
	}
	switch g.kind {
	case gkBasic:
		return jen.Id(basicDecoders[g.basic])
	case gkRaw:
		return jen.Id("decodeRawInto")
	case gkNamed:
		d := g.decl
		if d.kind == dAlias {
			if d.raw {
				return jen.Id("decodeRawInto")
			}
			return decodeFunc(d.under)
		}
		return jen.Parens(jen.Op("*").Id(d.name)).Dot("decodeFrom")
	case gkSlice, gkMap, gkArray, gkNullable:
		return wrap(helperCall(g, v))
	case gkPointer:
		return wrap(jen.Id("decodePointerInto").Call(v, jen.Id("d"), decodeFunc(g.elem)))
	}
	panic(fmt.Sprintf("gen: no decoder for type kind %d", g.kind))
}

// decodeStmts emits statements that decode the next value into dst, of type
// g, returning a fieldError naming typ and member on failure.
func decodeStmts(dst *jen.Statement, g *gtype, typ, member string) []jen.Code {
	fail := jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("fieldError").Call(jen.Lit(typ), jen.Lit(member), jen.Err())))
	switch g.kind {
	case gkBasic:
		return []jen.Code{
			jen.List(jen.Id("v"), jen.Err()).Op(":=").Id("d").Dot(scalarReaders[g.basic]).Call(jen.Lit(g.basic)),
			fail,
			jen.Add(dst).Op("=").Id("v"),
		}
	case gkRaw:
		return []jen.Code{
			jen.List(jen.Id("v"), jen.Err()).Op(":=").Id("d").Dot("readRaw").Call(),
			fail,
			jen.Add(dst).Op("=").Id("v"),
		}
	case gkNamed:
		d := g.decl
		if d.kind == dAlias {
			if d.raw {
				return decodeStmts(dst, &gtype{kind: gkRaw}, typ, member)
			}
			return decodeStmts(dst, d.under, typ, member)
		}
		return []jen.Code{jen.Err().Op("=").Add(dst).Dot("decodeFrom").Call(jen.Id("d")), fail}
	case gkPointer:
		switch g.elem.kind {
		case gkBasic, gkRaw, gkNamed:
			alloc := jen.New(goType(g.elem))
			if fn, ok := slabAllocators[underBasic(g.elem)]; ok {
				// A pointer to a scalar comes from the decoder's slab.
				alloc = jen.Id(fn).Types(goType(g.elem)).Call(jen.Id("d"))
			}
			return append([]jen.Code{jen.Add(dst).Op("=").Add(alloc)},
				decodeStmts(jen.Parens(jen.Op("*").Add(dst)), g.elem, typ, member)...)
		}
		return []jen.Code{jen.Err().Op("=").Id("decodePointerInto").Call(jen.Op("&").Add(dst), jen.Id("d"), decodeFunc(g.elem)), fail}
	}
	return []jen.Code{jen.Err().Op("=").Add(helperCall(g, jen.Op("&").Add(dst))), fail}
}

// helperCall calls the generic helper that decodes a slice, map, array or
// nullable g into ptr.
func helperCall(g *gtype, ptr *jen.Statement) *jen.Statement {
	switch g.kind {
	case gkSlice:
		return jen.Id("decodeSliceInto").Call(ptr, jen.Id("d"), jen.Lit(describeType(g)), decodeFunc(g.elem))
	case gkMap:
		return jen.Id("decodeMapInto").Call(ptr, jen.Id("d"), jen.Lit(describeType(g)), decodeFunc(g.elem))
	case gkArray:
		return jen.Id("decodeArrayInto").Call(jen.Parens(ptr).Index(jen.Empty(), jen.Empty()), jen.Id("d"), jen.Lit(describeType(g)), decodeFunc(g.elem))
	case gkNullable:
		return jen.Id("decodeNullableInto").Call(ptr, jen.Id("d"), decodeFunc(g.elem))
	}
	panic(fmt.Sprintf("gen: no helper for type kind %d", g.kind))
}

// decodeMethod emits the decodeFrom method of a named type with body, and
// UnmarshalJSONFrom over it (so encoding/json/v2 uses the same decoder) when
// withUnmarshal is set.
func decodeMethod(f *jen.File, name, recv string, body []jen.Code, withUnmarshal bool) {
	f.Comment(fmt.Sprintf("decodeFrom decodes a %s from d, validating what it reads.", name))
	f.Func().Params(jen.Id(recv).Op("*").Id(name)).Id("decodeFrom").Params(jen.Id("d").Op("*").Id("decoder")).Error().Block(body...)
	f.Line()
	if withUnmarshal {
		f.Comment(fmt.Sprintf("UnmarshalJSONFrom decodes a %s with the generated decoder.", name))
		f.Func().Params(jen.Id(recv).Op("*").Id(name)).Id("UnmarshalJSONFrom").Params(jen.Id("dec").Op("*").Qual(jsontextPkg, "Decoder")).Error().Block(
			jen.Return(jen.Id("unmarshalFrom").Call(jen.Id("dec"), jen.Id(recv))))
		f.Line()
	}
}

// returnIfErr is `if err != nil { return err }`.
func returnIfErr() jen.Code {
	return jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
}

// slabAllocators name the decoder's allocators of pointers to scalars, by
// the scalar's Go type.
var slabAllocators = map[string]string{"string": "newStringLike", "bool": "newBoolLike", "int32": "newInt32Like", "uint32": "newUint32Like"}

// underBasic is the predeclared Go type under g — of any enumeration,
// defined type or alias of one — or "".
func underBasic(g *gtype) string {
	switch g.kind {
	case gkBasic:
		return g.basic
	case gkNamed:
		d := g.decl
		switch d.kind {
		case dEnum:
			return basics[d.enum.Type.Name]
		case dExternal, dDefined:
			return underBasic(d.under)
		case dAlias:
			if !d.raw {
				return underBasic(d.under)
			}
		}
	}
	return ""
}
