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
	f.Type().Id(d.name).Struct(jen.Id("kind").Id(kindType), jen.Id("value").Any())
	f.Line()
	f.Comment(fmt.Sprintf("%s says which alternative a %s holds.", kindType, d.name))
	f.Type().Id(kindType).Uint8()
	f.Line()
	consts := []jen.Code{jen.Comment("the zero " + d.name + " holds no alternative").Line().Id(kindType + "None").Id(kindType).Op("=").Iota()}
	var strCases []jen.Code
	for _, a := range d.alts {
		consts = append(consts, jen.Id(kindType+a.suffix))
		strCases = append(strCases, jen.Case(jen.Id(kindType+a.suffix)).Block(jen.Return(jen.Lit(a.suffix))))
	}
	f.Const().Defs(consts...)
	f.Line()
	f.Comment("String names the alternative.")
	f.Func().Params(jen.Id("k").Id(kindType)).Id("String").Params().String().Block(
		jen.Switch(jen.Id("k")).Block(strCases...), jen.Return(jen.Lit("None")))
	f.Line()
	for _, a := range d.alts {
		ctor := "New" + d.name + a.suffix
		f.Comment(fmt.Sprintf("%s returns a %s holding v.", ctor, d.name))
		f.Func().Id(ctor).Params(jen.Id("v").Add(goType(a.typ))).Id(d.name).Block(
			jen.Return(jen.Id(d.name).Values(jen.Dict{jen.Id("kind"): jen.Id(kindType + a.suffix), jen.Id("value"): jen.Id("v")})))
		f.Line()
		f.Comment(fmt.Sprintf("As%s returns the %s alternative and true, or false if u holds another.", a.suffix, a.suffix))
		f.Func().Params(jen.Id("u").Id(d.name)).Id("As"+a.suffix).Params().Params(goType(a.typ), jen.Bool()).Block(
			jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Id("u").Dot("value").Assert(goType(a.typ)),
			jen.Return(jen.Id("v"), jen.Id("ok").Op("&&").Id("u").Dot("kind").Op("==").Id(kindType+a.suffix)))
		f.Line()
	}
	f.Comment("Kind says which alternative u holds.")
	f.Func().Params(jen.Id("u").Id(d.name)).Id("Kind").Params().Id(kindType).Block(jen.Return(jen.Id("u").Dot("kind")))
	f.Line()
	f.Comment("Value returns the alternative u holds, or nil, for a type switch.")
	f.Func().Params(jen.Id("u").Id(d.name)).Id("Value").Params().Any().Block(jen.Return(jen.Id("u").Dot("value")))
	f.Line()
	f.Comment("IsZero reports whether u holds no alternative, so omitzero omits it.")
	f.Func().Params(jen.Id("u").Id(d.name)).Id("IsZero").Params().Bool().Block(jen.Return(jen.Id("u").Dot("kind").Op("==").Id(kindType + "None")))
	f.Line()
	f.Comment("MarshalJSONTo encodes the alternative u holds; a zero union is an error.")
	f.Func().Params(jen.Id("u").Id(d.name)).Id("MarshalJSONTo").Params(jen.Id("enc").Op("*").Qual(jsontextPkg, "Encoder")).Error().Block(
		jen.If(jen.Id("u").Dot("kind").Op("==").Id(kindType+"None")).Block(
			jen.Return(jen.Qual("errors", "New").Call(jen.Lit("protocol: "+d.name+" holds no alternative")))),
		jen.Return(jen.Qual(jsonPkg, "MarshalEncode").Call(jen.Id("enc"), jen.Id("u").Dot("value"))))
	f.Line()
	return e.unionDecoder(f, d)
}

// unionDecoder emits UnmarshalJSONFrom: one case per JSON kind. A kind only
// one alternative can take is decoded straight from the stream; a contested
// kind is read whole and handed to the generated pick function.
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
			cases = append(cases, jen.Case(kindCase(k)...).Block(
				jen.Var().Id("v").Add(goType(a.typ)),
				jen.If(jen.Err().Op(":=").Qual(jsonPkg, "UnmarshalDecode").Call(jen.Id("dec"), jen.Op("&").Id("v")), jen.Err().Op("!=").Nil()).Block(
					jen.Return(jen.Op("&").Id("DecodeError").Values(jen.Dict{jen.Id("Type"): jen.Lit(d.name), jen.Id("Msg"): jen.Lit("as " + a.suffix), jen.Id("Err"): jen.Err()}))),
				jen.Op("*").Id("u").Op("=").Id("New"+d.name+a.suffix).Call(jen.Id("v")),
				jen.Return(jen.Nil())))
		default:
			contested = append(contested, kindCase(k)...)
		}
	}
	if len(contested) > 0 {
		cases = append(cases, jen.Case(contested...).Block(
			jen.List(jen.Id("raw"), jen.Err()).Op(":=").Id("dec").Dot("ReadValue").Call(),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			jen.Return(jen.Id("u").Dot("fromRaw").Call(jen.Id("raw"), jen.Id("k")))))
	}
	cases = append(cases,
		jen.Case(jen.Lit(0)).Block(jen.List(jen.Id("_"), jen.Err()).Op(":=").Id("dec").Dot("ReadToken").Call(), jen.Return(jen.Err())),
		jen.Default().Block(jen.Return(jen.Id("unionMismatch").Call(jen.Lit(d.name), jen.Id("k")))))
	f.Comment(fmt.Sprintf("UnmarshalJSONFrom decodes a %s, choosing the alternative by JSON kind, then by discriminating members, then by the most specific shape.", d.name))
	f.Func().Params(jen.Id("u").Op("*").Id(d.name)).Id("UnmarshalJSONFrom").Params(jen.Id("dec").Op("*").Qual(jsontextPkg, "Decoder")).Error().Block(
		jen.Switch(jen.Id("k").Op(":=").Id("dec").Dot("PeekKind").Call(), jen.Id("k")).Block(cases...))
	f.Line()
	if len(contested) == 0 {
		return nil
	}
	var altCases []jen.Code
	for i, a := range d.alts {
		altCases = append(altCases, jen.Case(jen.Lit(i)).Block(
			jen.Var().Id("v").Add(goType(a.typ)),
			jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("raw"), jen.Op("&").Id("v")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Op("&").Id("DecodeError").Values(jen.Dict{jen.Id("Type"): jen.Lit(d.name), jen.Id("Msg"): jen.Lit("as " + a.suffix), jen.Id("Err"): jen.Err()}))),
			jen.Op("*").Id("u").Op("=").Id("New"+d.name+a.suffix).Call(jen.Id("v")),
			jen.Return(jen.Nil())))
	}
	f.Func().Params(jen.Id("u").Op("*").Id(d.name)).Id("fromRaw").Params(jen.Id("raw").Index().Byte(), jen.Id("k").Qual(jsontextPkg, "Kind")).Error().Block(
		jen.Switch(jen.Id("pick"+d.name).Call(jen.Id("raw"))).Block(altCases...),
		jen.Return(jen.Id("unionMismatch").Call(jen.Lit(d.name), jen.Id("k"))))
	f.Line()
	p := &picker{f: f, union: d.name}
	body := p.pick(leaves, jen.Id("raw"), 0)
	f.Comment(fmt.Sprintf("pick%s returns the alternative of %s that raw encodes, or -1.", d.name, d.name))
	f.Func().Id("pick" + d.name).Params(jen.Id("raw").Index().Byte()).Int().Block(body...)
	f.Line()
	return nil
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
	return []jen.Code{jen.Switch(jen.Id("stringValue").Call(raw)).Block(cases...), jen.Return(jen.Lit(plain))}
}

// pickNumber prefers the most specific number class that fits.
func (p *picker) pickNumber(ls []*leaf, raw *jen.Statement) []jen.Code {
	body := []jen.Code{jen.Id("c").Op(":=").Id("numberClass").Call(raw)}
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
