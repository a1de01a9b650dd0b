package main

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
)

// kindOrder fixes the order in which generated code tests JSON kinds.
var kindOrder = []byte{'"', '0', 't', 'n', '{', '['}

// kindCase is the case expression list for a JSON kind.
func kindCase(k byte) []jen.Code {
	if k == 't' {
		return []jen.Code{jen.LitRune('t'), jen.LitRune('f')}
	}
	return []jen.Code{jen.LitRune(rune(k))}
}

func (e *emitter) unions(f *jen.File) error {
	for _, d := range e.r.sortedDecls(dUnion) {
		if err := e.union(f, d); err != nil {
			return fmt.Errorf("union %s: %w", d.name, err)
		}
	}
	return nil
}

func (e *emitter) union(f *jen.File, d *decl) error {
	kindType := d.kindName
	var names []string
	for _, a := range d.alts {
		names = append(names, a.suffix)
	}
	extra := []string{fmt.Sprintf("%s is a union: exactly one of %s. The zero value holds none; it is valid only for an absent optional property.", d.name, strings.Join(names, ", "))}
	extra = append(extra, usedBy(d)...)
	addComment(f, comment(d.doc, extra...))
	fields := []jen.Code{jen.Id("kind").Id(kindType)}
	for _, a := range d.alts {
		fields = append(fields, jen.Id(altField(a)).Add(goType(altStorage(a))))
	}
	f.Type().Id(d.name).Struct(fields...)
	f.Line()
	f.Comment(fmt.Sprintf("%s says which alternative a %s holds.", kindType, d.name))
	f.Type().Id(kindType).Uint8()
	f.Line()
	consts := []jen.Code{jen.Comment("the zero " + d.name + " holds no alternative").Line().Id(kindType + "None").Id(kindType).Op("=").Iota()}
	var strCases []jen.Code
	for _, a := range d.alts {
		consts = append(consts, jen.Comment(fmt.Sprintf("%s%s: the union holds a %s.", kindType, a.suffix, a.suffix)), jen.Id(kindType+a.suffix))
		strCases = append(strCases, jen.Case(jen.Id(kindType+a.suffix)).Block(jen.Return(jen.Lit(a.suffix))))
	}
	f.Const().Defs(consts...)
	f.Line()
	f.Comment("String names the alternative.")
	f.Func().Params(jen.Id("k").Id(kindType)).Id("String").Params().String().Block(
		jen.Switch(jen.Id("k")).Block(strCases...), jen.Return(jen.Lit("None")))
	f.Line()
	var valueCases, marshalCases []jen.Code
	for _, a := range d.alts {
		ctor := "New" + d.name + a.suffix
		field := jen.Id("u").Dot(altField(a))
		stored, read := jen.Id("v"), field.Clone()
		if altStorage(a).kind == gkPointer {
			stored, read = jen.Op("&").Id("v"), jen.Op("*").Add(field.Clone())
		}
		f.Comment(fmt.Sprintf("%s returns a %s holding v.", ctor, d.name))
		f.Func().Id(ctor).Params(jen.Id("v").Add(goType(a.typ))).Id(d.name).Block(
			jen.Return(jen.Id(d.name).Values(jen.Dict{jen.Id("kind"): jen.Id(kindType + a.suffix), jen.Id(altField(a)): stored})))
		f.Line()
		f.Comment(fmt.Sprintf("As%s returns the %s alternative and true, or false if u holds another.", a.suffix, a.suffix))
		f.Func().Params(jen.Id("u").Id(d.name)).Id("As"+a.suffix).Params().Params(goType(a.typ), jen.Bool()).Block(
			jen.If(jen.Id("u").Dot("kind").Op("!=").Id(kindType+a.suffix)).Block(
				jen.Var().Id("zero").Add(goType(a.typ)),
				jen.Return(jen.Id("zero"), jen.False())),
			jen.Return(read.Clone(), jen.True()))
		f.Line()
		valueCases = append(valueCases, jen.Case(jen.Id(kindType+a.suffix)).Block(jen.Return(read.Clone())))
		marshalCases = append(marshalCases, jen.Case(jen.Id(kindType+a.suffix)).Block(encodeAlt(a, field.Clone())...))
	}
	f.Comment("Kind says which alternative u holds.")
	f.Func().Params(jen.Id("u").Id(d.name)).Id("Kind").Params().Id(kindType).Block(jen.Return(jen.Id("u").Dot("kind")))
	f.Line()
	f.Comment("Value returns the alternative u holds, or nil, for a type switch.")
	f.Func().Params(jen.Id("u").Id(d.name)).Id("Value").Params().Any().Block(
		jen.Switch(jen.Id("u").Dot("kind")).Block(valueCases...), jen.Return(jen.Nil()))
	f.Line()
	f.Comment("IsZero reports whether u holds no alternative, so omitzero omits it.")
	f.Func().Params(jen.Id("u").Id(d.name)).Id("IsZero").Params().Bool().Block(jen.Return(jen.Id("u").Dot("kind").Op("==").Id(kindType + "None")))
	f.Line()
	f.Comment("MarshalJSONTo encodes the alternative u holds; a zero union is an error.")
	f.Func().Params(jen.Id("u").Id(d.name)).Id("MarshalJSONTo").Params(jen.Id("enc").Op("*").Qual(jsontextPkg, "Encoder")).Error().Block(
		jen.Switch(jen.Id("u").Dot("kind")).Block(marshalCases...),
		jen.Return(jen.Qual("errors", "New").Call(jen.Lit("protocol: "+d.name+" holds no alternative"))))
	f.Line()
	return e.unionDecoder(f, d)
}

// unionDecoder emits decodeFrom: one case per JSON kind. A kind only one
// alternative can take is decoded straight from the input; a contested kind
// is read whole (and validated) and handed to the generated pick function,
// then decoded from those bytes.
func (e *emitter) unionDecoder(f *jen.File, d *decl) error {
	leaves := unionLeaves(d)
	var cases []jen.Code
	var contested []jen.Code
	for _, k := range kindOrder {
		ls := ofKind(leaves, k)
		alts := distinctAlts(ls)
		switch {
		case len(alts) == 0:
		case len(alts) == 1:
			a := d.alts[alts[0]]
			body := []jen.Code{jen.Op("*").Id("u").Op("=").Id(d.name).Values(), jen.Var().Err().Error()}
			body = append(body, decodeStmts(jen.Id("u").Dot(altField(a)), altStorage(a), d.name, a.suffix)...)
			body = append(body, jen.Id("u").Dot("kind").Op("=").Id(d.kindName+a.suffix), jen.Return(jen.Nil()))
			cases = append(cases, jen.Case(kindCase(k)...).Block(body...))
		default:
			contested = append(contested, kindCase(k)...)
		}
	}
	if len(contested) > 0 {
		cases = append(cases, jen.Case(contested...).Block(
			jen.Return(jen.Id("u").Dot("decodePicked").Call(jen.Id("d"), jen.Id("k")))))
	}
	cases = append(cases,
		jen.Case(jen.Lit(0)).Block(jen.Return(jen.Id("d").Dot("unexpected").Call(jen.Lit("a value")))),
		jen.Default().Block(jen.Return(jen.Id("unionMismatch").Call(jen.Lit(d.name), jen.Id("k")))))
	decodeMethod(f, d.name, "u", []jen.Code{
		jen.Switch(jen.Id("k").Op(":=").Id("d").Dot("peek").Call(), jen.Id("k")).Block(cases...)}, true)
	if len(contested) == 0 {
		return nil
	}
	var altCases []jen.Code
	for i, a := range d.alts {
		body := []jen.Code{jen.Op("*").Id("u").Op("=").Id(d.name).Values(), jen.Var().Err().Error()}
		body = append(body, decodeStmts(jen.Id("u").Dot(altField(a)), altStorage(a), d.name, a.suffix)...)
		body = append(body, jen.Id("u").Dot("kind").Op("=").Id(d.kindName+a.suffix), jen.Return(jen.Nil()))
		altCases = append(altCases, jen.Case(jen.Lit(i)).Block(body...))
	}
	f.Comment("decodePicked decodes the next value, of kind k, as the alternative its pick function chooses from a look at it (pickSpan), in one pass.")
	f.Func().Params(jen.Id("u").Op("*").Id(d.name)).Id("decodePicked").Params(jen.Id("d").Op("*").Id("decoder"), jen.Id("k").Qual(jsontextPkg, "Kind")).Error().Block(
		jen.Switch(jen.Id("pick"+d.name).Call(jen.Id("d").Dot("pickSpan").Call(jen.Id("k")))).Block(altCases...),
		jen.If(jen.Err().Op(":=").Id("d").Dot("skip").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Return(jen.Id("unionMismatch").Call(jen.Lit(d.name), jen.Id("k"))))
	f.Line()
	p := &picker{f: f, union: d.name}
	body := p.pick(leaves, jen.Id("raw"), 0)
	f.Comment(fmt.Sprintf("pick%s returns the alternative of %s that raw encodes, or -1.", d.name, d.name))
	f.Func().Id("pick" + d.name).Params(jen.Id("raw").Index().Byte()).Int().Block(body...)
	f.Line()
	return nil
}

// altField names the storage field of an alternative.
func altField(a *alt) string { return "v" + a.suffix }

// altStorage is how a union stores an alternative: structs behind a pointer
// (one allocation, decoded in place), everything else inline, so scalars,
// slices and nested unions cost no allocation of their own.
func altStorage(a *alt) *gtype {
	g := a.typ
	for g.kind == gkNamed && g.decl.kind == dAlias && !g.decl.raw {
		g = g.decl.under
	}
	if g.kind == gkNamed && g.decl.kind == dStruct {
		return &gtype{kind: gkPointer, elem: a.typ}
	}
	return a.typ
}

// tokenWriters encode predeclared types without boxing them.
var tokenWriters = map[string]string{"string": "String", "bool": "Bool", "int32": "Int", "uint32": "Uint", "float64": "Float"}

// encodeAlt emits the statements that encode one alternative held in field.
func encodeAlt(a *alt, field *jen.Statement) []jen.Code {
	if b := basicOf(a.typ); b != "" {
		conv := map[string]*jen.Statement{"int32": jen.Int64(), "uint32": jen.Uint64(), "string": jen.String(), "bool": jen.Bool(), "float64": jen.Float64()}[b]
		return []jen.Code{jen.Return(jen.Id("enc").Dot("WriteToken").Call(jen.Qual(jsontextPkg, tokenWriters[b]).Call(conv.Call(field))))}
	}
	return []jen.Code{jen.Return(jen.Qual(jsonPkg, "MarshalEncode").Call(jen.Id("enc"), field))}
}

// picker emits the decision procedure for contested kinds.
type picker struct {
	f      *jen.File
	union  string
	shapes int
}

// pick emits statements that return the alternative the JSON value in raw
// (an expression) encodes, or -1.
func (p *picker) pick(leaves []*leaf, raw *jen.Statement, depth int) []jen.Code {
	var cases []jen.Code
	for _, k := range kindOrder {
		ls := ofKind(leaves, k)
		alts := distinctAlts(ls)
		if len(alts) == 0 {
			continue
		}
		var body []jen.Code
		if len(alts) == 1 {
			body = []jen.Code{jen.Return(jen.Lit(alts[0]))}
		} else {
			switch k {
			case '"':
				body = p.pickString(ls, raw)
			case '0':
				body = p.pickNumber(ls, raw)
			case '{':
				body = p.pickObject(ls, raw)
			case '[':
				body = p.pickArray(ls, raw, depth)
			default:
				body = []jen.Code{jen.Return(jen.Lit(alts[0]))}
			}
		}
		cases = append(cases, jen.Case(kindCase(k)...).Block(body...))
	}
	return []jen.Code{jen.Switch(jen.Id("rawKind").Call(raw)).Block(cases...), jen.Return(jen.Lit(-1))}
}

// pickString matches literal values first, then any-string alternatives.
func (p *picker) pickString(ls []*leaf, raw *jen.Statement) []jen.Code {
	var cases []jen.Code
	plain := -1
	seen := map[string]bool{}
	for _, l := range ls {
		if l.lits == nil {
			if plain < 0 {
				plain = l.alt
			}
			continue
		}
		var vals []jen.Code
		for _, v := range l.lits {
			if !seen[v] {
				seen[v] = true
				vals = append(vals, jen.Lit(v))
			}
		}
		if len(vals) > 0 {
			cases = append(cases, jen.Case(vals...).Block(jen.Return(jen.Lit(l.alt))))
		}
	}
	return []jen.Code{
		jen.List(jen.Id("s"), jen.Id("_")).Op(":=").Id("unquote").Call(raw),
		jen.Switch(jen.String().Call(jen.Id("s"))).Block(cases...),
		jen.Return(jen.Lit(plain)),
	}
}

// pickNumber prefers the most specific number class that fits.
func (p *picker) pickNumber(ls []*leaf, raw *jen.Statement) []jen.Code {
	// c is 0 for an unsigned integer, 1 for a negative one, 2 for a decimal.
	body := []jen.Code{
		jen.Id("c").Op(":=").Lit(0),
		jen.If(jen.Qual("bytes", "ContainsAny").Call(raw, jen.Lit(".eE"))).Block(jen.Id("c").Op("=").Lit(2)).
			Else().If(jen.Len(raw).Op(">").Lit(0).Op("&&").Add(raw).Index(jen.Lit(0)).Op("==").LitRune('-')).Block(jen.Id("c").Op("=").Lit(1)),
	}
	for class := 0; class <= 2; class++ {
		for _, l := range ls {
			if l.numClass == class {
				body = append(body, jen.If(jen.Id("c").Op("<=").Lit(class)).Block(jen.Return(jen.Lit(l.alt))))
				break
			}
		}
	}
	return append(body, jen.Return(jen.Lit(-1)))
}

// pickObject tests discriminating members (chosen here, at generation time),
// then falls back to the most specific shape among the rest.
func (p *picker) pickObject(ls []*leaf, raw *jen.Statement) []jen.Code {
	var cases []jen.Code
	var rest []*leaf
	for _, l := range ls {
		if l.anything {
			rest = append(rest, l)
			continue
		}
		disc, ok := objectDiscriminator(l, ls)
		if !ok {
			rest = append(rest, l)
			continue
		}
		var cond jen.Code
		if disc.lit == "" {
			cond = jen.Id("objectHas").Call(raw, jen.Lit(disc.member))
		} else {
			cond = jen.Id("objectKeyIs").Call(raw, jen.Lit(disc.member), jen.Lit(disc.lit))
		}
		cases = append(cases, jen.Case(cond).Block(jen.Return(jen.Lit(l.alt))))
	}
	var body []jen.Code
	if len(cases) > 0 {
		body = append(body, jen.Switch().Block(cases...))
	}
	alts := distinctAlts(rest)
	switch {
	case len(alts) == 0:
		body = append(body, jen.Return(jen.Lit(-1)))
	case len(alts) == 1:
		body = append(body, jen.Return(jen.Lit(alts[0])))
	default:
		p.shapes++
		name := fmt.Sprintf("shapes%s%d", p.union, p.shapes)
		var shapes []jen.Code
		for _, l := range rest {
			d := jen.Dict{jen.Id("alt"): jen.Lit(l.alt)}
			if l.anything {
				d[jen.Id("anything")] = jen.True()
			}
			if len(l.required) > 0 {
				d[jen.Id("required")] = jen.Index().String().Values(lits(l.required)...)
			}
			if len(l.known) > 0 {
				d[jen.Id("known")] = jen.Index().String().Values(lits(l.known)...)
			}
			if len(l.literals) > 0 {
				var kv []string
				for _, x := range l.literals {
					kv = append(kv, x[0], x[1])
				}
				d[jen.Id("literals")] = jen.Index().String().Values(lits(kv)...)
			}
			shapes = append(shapes, jen.Values(d))
		}
		p.f.Var().Id(name).Op("=").Index().Id("objectShape").Values(shapes...)
		p.f.Line()
		body = append(body, jen.Return(jen.Id("bestShape").Call(raw, jen.Id(name))))
	}
	return body
}

// pickArray decides by the first element; an empty array is the first
// alternative that can be an array (every candidate encodes it the same way).
func (p *picker) pickArray(ls []*leaf, raw *jen.Statement, depth int) []jen.Code {
	elem := jen.Id(fmt.Sprintf("elem%d", depth))
	var elems []*leaf
	for _, l := range ls {
		for _, el := range l.elems {
			c := *el
			c.alt = l.alt
			elems = append(elems, &c)
		}
	}
	body := []jen.Code{
		jen.List(elem.Clone(), jen.Id("ok")).Op(":=").Id("firstElement").Call(raw),
		jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.Lit(ls[0].alt))),
	}
	return append(body, p.pick(elems, elem, depth+1)...)
}

func lits(ss []string) []jen.Code {
	var out []jen.Code
	for _, s := range ss {
		out = append(out, jen.Lit(s))
	}
	return out
}
