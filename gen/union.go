package main

import (
	"strconv"
)

// A leaf is one JSON shape a union alternative can take. Alternatives that
// are themselves unions (MarkedString, Definition, ...) contribute one leaf
// per shape of theirs, all mapped to the outer alternative.
type leaf struct {
	alt  int
	kind byte // '"', '0', 't' (boolean), 'n', '{', '['

	lits     []string // '"': the only values accepted (closed enums, literals); nil = any string
	numClass int      // '0': 0 uinteger, 1 integer, 2 decimal

	required []string    // '{': required members, in declaration order
	known    []string    // '{': all members
	literals [][2]string // '{': members whose value is a string literal
	anything bool        // '{': a map or raw JSON: any object

	elems []*leaf // '[': the element's leaves, with alt set to this leaf's alt
}

func (l *leaf) knows(name string) bool {
	for _, k := range l.known {
		if k == name {
			return true
		}
	}
	return false
}

func (l *leaf) literal(name string) (string, bool) {
	for _, kv := range l.literals {
		if kv[0] == name {
			return kv[1], true
		}
	}
	return "", false
}

// leavesOf lists the JSON shapes of g, attributed to alternative alt.
func leavesOf(g *gtype, alt int) []*leaf {
	switch g.kind {
	case gkBasic:
		switch g.basic {
		case "string":
			return []*leaf{{alt: alt, kind: '"'}}
		case "bool":
			return []*leaf{{alt: alt, kind: 't'}}
		case "NullResult":
			return []*leaf{{alt: alt, kind: 'n'}}
		case "uint32":
			return []*leaf{{alt: alt, kind: '0', numClass: 0}}
		case "int32":
			return []*leaf{{alt: alt, kind: '0', numClass: 1}}
		default:
			return []*leaf{{alt: alt, kind: '0', numClass: 2}}
		}
	case gkSlice, gkArray:
		return []*leaf{{alt: alt, kind: '[', elems: leavesOf(g.elem, alt)}}
	case gkMap:
		return []*leaf{{alt: alt, kind: '{', anything: true}}
	case gkNullable:
		return append(leavesOf(g.elem, alt), &leaf{alt: alt, kind: 'n'})
	case gkPointer:
		return leavesOf(g.elem, alt)
	case gkRaw:
		var ls []*leaf
		for _, k := range []byte{'"', '0', 't', 'n'} {
			ls = append(ls, &leaf{alt: alt, kind: k, numClass: 2})
		}
		return append(ls, &leaf{alt: alt, kind: '{', anything: true}, &leaf{alt: alt, kind: '[', elems: []*leaf{{alt: alt, kind: '{', anything: true}}})
	}
	d := g.decl
	switch d.kind {
	case dStruct:
		l := &leaf{alt: alt, kind: '{'}
		for _, f := range d.fields {
			l.known = append(l.known, f.jsonName)
			if !f.optional {
				l.required = append(l.required, f.jsonName)
				if f.typ.kind == gkNamed && f.typ.decl.kind == dLiteral && f.typ.decl.lit[0] == '"' {
					v, _ := strconv.Unquote(f.typ.decl.lit)
					l.literals = append(l.literals, [2]string{f.jsonName, v})
				}
			}
		}
		return []*leaf{l}
	case dEnum:
		if d.enum.Type.Name != "string" {
			class := 0
			if d.enum.Type.Name == "integer" {
				class = 1
			}
			return []*leaf{{alt: alt, kind: '0', numClass: class}}
		}
		l := &leaf{alt: alt, kind: '"'}
		if !d.enum.SupportsCustomValues {
			for _, v := range d.enum.Values {
				s, _ := strconv.Unquote(string(v.Value))
				l.lits = append(l.lits, s)
			}
		}
		return []*leaf{l}
	case dUnion:
		var ls []*leaf
		for _, a := range d.alts {
			ls = append(ls, leavesOf(a.typ, alt)...)
		}
		return ls
	case dLiteral:
		switch d.lit[0] {
		case '"':
			v, _ := strconv.Unquote(d.lit)
			return []*leaf{{alt: alt, kind: '"', lits: []string{v}}}
		case 't', 'f':
			return []*leaf{{alt: alt, kind: 't'}}
		}
		return []*leaf{{alt: alt, kind: '0', numClass: 1}}
	}
	if d.raw {
		return leavesOf(&gtype{kind: gkRaw}, alt)
	}
	return leavesOf(d.under, alt)
}

// unionLeaves returns the leaves of every alternative of a union.
func unionLeaves(d *decl) []*leaf {
	var ls []*leaf
	for i, a := range d.alts {
		ls = append(ls, leavesOf(a.typ, i)...)
	}
	return ls
}

func ofKind(ls []*leaf, k byte) []*leaf {
	var out []*leaf
	for _, l := range ls {
		if l.kind == k {
			out = append(out, l)
		}
	}
	return out
}

func distinctAlts(ls []*leaf) []int {
	var alts []int
	seen := map[int]bool{}
	for _, l := range ls {
		if !seen[l.alt] {
			seen[l.alt] = true
			alts = append(alts, l.alt)
		}
	}
	return alts
}

// discriminator is how one object leaf is recognized among its rivals.
type discriminator struct {
	member string
	lit    string // "" for presence of member; else member must hold lit
}

// objectDiscriminator returns a member whose presence (or literal value)
// singles out l among the leaves of other alternatives: first a required
// member no rival knows, then a literal member whose value differs from every
// rival's.
func objectDiscriminator(l *leaf, rivals []*leaf) (discriminator, bool) {
	others := func(fn func(o *leaf) bool) bool {
		for _, o := range rivals {
			if o.alt != l.alt && !o.anything && !fn(o) {
				return false
			}
		}
		return true
	}
	for _, r := range l.required {
		if others(func(o *leaf) bool { return !o.knows(r) }) {
			return discriminator{member: r}, true
		}
	}
	for _, kv := range l.literals {
		if others(func(o *leaf) bool {
			v, ok := o.literal(kv[0])
			return !o.knows(kv[0]) || (ok && v != kv[1])
		}) {
			return discriminator{member: kv[0], lit: kv[1]}, true
		}
	}
	return discriminator{}, false
}
