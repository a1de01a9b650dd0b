package main

import (
	"fmt"
	"sort"

	"github.com/dave/jennifer/jen"
)

// mpart is one resolved part of a method: its Go type, or nil.
type mpart struct {
	params, result, partial, regOpts, errData *gtype
}

func (e *emitter) allMethods() []*method {
	return append(append([]*method(nil), e.r.m.Requests...), e.r.m.Notifications...)
}

// parts returns a method's resolved parts.
func (e *emitter) parts(me *method) mpart { return e.r.methodParts[me] }

func isNullResult(g *gtype) bool { return g != nil && g.kind == gkBasic && g.model == "null" }

// paramsType and resultType are the Go types of a method's params and result,
// with the NoParams and NullResult stand-ins.
func paramsType(p mpart) *jen.Statement {
	if p.params == nil {
		return jen.Id("NoParams")
	}
	return goType(p.params)
}

func resultType(p mpart) *jen.Statement {
	if p.result == nil || isNullResult(p.result) {
		return jen.Id("NullResult")
	}
	return goType(p.result)
}

// paramsDecoder and resultDecoder decode a method's params and result.
func paramsDecoder(p mpart) *jen.Statement {
	if p.params == nil {
		return jen.Parens(jen.Op("*").Id("NoParams")).Dot("decodeFrom")
	}
	return decodeFunc(p.params)
}

func resultDecoder(p mpart) *jen.Statement {
	if p.result == nil || isNullResult(p.result) {
		return jen.Parens(jen.Op("*").Id("NullResult")).Dot("decodeFrom")
	}
	return decodeFunc(p.result)
}

func typeOf(g *gtype) jen.Code {
	return jen.Qual("reflect", "TypeFor").Types(goType(g)).Call()
}

var directions = map[string]string{"clientToServer": "ClientToServer", "serverToClient": "ServerToClient", "both": "BothDirections"}

func (e *emitter) methods(f *jen.File) error {
	f.Comment("ModelVersion is the LSP version of the meta model the package was generated from.")
	f.Const().Id("ModelVersion").Op("=").Lit(e.version)
	f.Line()
	var consts, infos, descs []jen.Code
	for i, me := range e.allMethods() {
		p := e.parts(me)
		name := goName(me.Method)
		cname := "Method" + name
		kind := "request"
		if me.notification {
			kind = "notification"
		}
		consts = append(consts, jen.Comment(fmt.Sprintf("%s is the %s %q.", cname, kind, me.Method)).Line().Id(cname).Op("=").Lit(me.Method))
		d := jen.Dict{
			jen.Id("Method"):    jen.Id(cname),
			jen.Id("Direction"): jen.Id(directions[me.MessageDirection]),
			jen.Id("Params"):    jen.Qual("reflect", "TypeFor").Types(paramsType(p)).Call(),
		}
		if me.notification {
			d[jen.Id("Notification")] = jen.True()
		} else {
			d[jen.Id("Result")] = jen.Qual("reflect", "TypeFor").Types(resultType(p)).Call()
		}
		for key, g := range map[string]*gtype{"PartialResult": p.partial, "RegistrationOptions": p.regOpts, "ErrorData": p.errData} {
			if g != nil {
				d[jen.Id(key)] = typeOf(g)
			}
		}
		for key, s := range map[string]string{"RegistrationMethod": me.RegistrationMethod, "ClientCapability": me.ClientCapability, "ServerCapability": me.ServerCapability, "Since": me.Since, "Deprecated": me.Deprecated} {
			if s != "" {
				d[jen.Id(key)] = jen.Lit(s)
			}
		}
		if me.Proposed {
			d[jen.Id("Proposed")] = jen.True()
		}
		infos = append(infos, jen.Values(d))
		var typ *jen.Statement
		fields := jen.Dict{jen.Id("info"): jen.Id("methodList").Index(jen.Lit(i)), jen.Id("params"): paramsDecoder(p)}
		if me.notification {
			typ = jen.Id("NotificationType").Types(paramsType(p))
		} else {
			typ = jen.Id("RequestType").Types(paramsType(p), resultType(p))
			fields[jen.Id("result")] = resultDecoder(p)
		}
		descs = append(descs, append(commentLines(comment(me.docs, fmt.Sprintf("%s describes the %s %q.", me.descriptorName(), kind, me.Method))),
			jen.Id(me.descriptorName()).Op("=").Add(typ).Values(fields))...)
	}
	f.Const().Defs(consts...)
	f.Line()
	f.Comment("methodList describes every method, requests first, in model order.")
	f.Var().Id("methodList").Op("=").Index().Op("*").Id("MethodInfo").Values(infos...)
	f.Line()
	f.Var().Id("methodIndex").Op("=").Func().Params().Map(jen.String()).Op("*").Id("MethodInfo").Block(
		jen.Id("m").Op(":=").Make(jen.Map(jen.String()).Op("*").Id("MethodInfo"), jen.Len(jen.Id("methodList"))),
		jen.For(jen.List(jen.Id("_"), jen.Id("info")).Op(":=").Range().Id("methodList")).Block(
			jen.Id("m").Index(jen.Id("info").Dot("Method")).Op("=").Id("info")),
		jen.Return(jen.Id("m")),
	).Call()
	f.Line()
	f.Comment("The typed descriptors of every request and notification.")
	f.Var().Defs(descs...)
	f.Line()

	var names []string
	byName := map[string]*decl{}
	for _, d := range e.r.decls {
		if d.modelName != "" {
			names = append(names, d.modelName)
			byName[d.modelName] = d
		}
	}
	sort.Strings(names)
	var entries, nameLits []jen.Code
	for _, n := range names {
		entries = append(entries, jen.Lit(n).Op(":").Qual("reflect", "TypeFor").Types(jen.Id(byName[n].name)).Call())
		nameLits = append(nameLits, jen.Lit(n))
	}
	f.Comment("typeIndex maps each structure, enumeration and type alias of the model to its Go type.")
	f.Var().Id("typeIndex").Op("=").Map(jen.String()).Qual("reflect", "Type").Values(entries...)
	f.Line()
	f.Var().Id("typeNames").Op("=").Index().String().Values(nameLits...)
	return nil
}

// dispatch emits the Server and Client interfaces, their MethodNotFound
// bases, and the functions that decode params for them and call them.
func (e *emitter) dispatch(f *jen.File) error {
	for _, side := range []struct{ iface, dir, doc string }{
		{"Server", "clientToServer", "Server is a language server: every request and notification a client sends it."},
		{"Client", "serverToClient", "Client is a language client: every request and notification a server sends it."},
	} {
		var sigs, decodeCases, callCases []jen.Code
		unimpl := "Unimplemented" + side.iface
		var bases []jen.Code
		for _, me := range e.allMethods() {
			if me.MessageDirection != side.dir && me.MessageDirection != "both" {
				continue
			}
			p := e.parts(me)
			name := goName(me.Method)
			args := []jen.Code{jen.Id("ctx").Qual("context", "Context")}
			call := []jen.Code{jen.Id("ctx")}
			if p.params != nil {
				args = append(args, jen.Id("params").Op("*").Add(goType(p.params)))
				call = append(call, jen.Id("p"))
			}
			hasResult := !me.notification && !isNullResult(p.result)
			var results jen.Code = jen.Error()
			if hasResult {
				results = jen.Params(goType(p.result), jen.Error())
			}
			sigs = append(sigs, commentLines(comment(me.docs, fmt.Sprintf("%s handles the %s %q.", name, map[bool]string{true: "notification", false: "request"}[me.notification], me.Method)))...)
			sigs = append(sigs, jen.Id(name).Params(args...).Add(results))

			var ret []jen.Code
			if hasResult {
				ret = append(ret, goType(p.result).Values())
			}
			ret = append(ret, jen.Id("methodNotFound").Call(jen.Lit(me.Method)))
			uargs := []jen.Code{jen.Qual("context", "Context")}
			if p.params != nil {
				uargs = append(uargs, jen.Op("*").Add(goType(p.params)))
			}
			bases = append(bases, jen.Comment(name+" answers MethodNotFound.").Line().
				Func().Params(jen.Id(unimpl)).Id(name).Params(uargs...).Add(results).Block(jen.Return(ret...)).Line())

			decodeCases = append(decodeCases, jen.Case(jen.Id("Method"+name)).Block(
				jen.Return(jen.Id(me.descriptorName()).Dot("decodeParamsAny").Call(jen.Id("params")))))

			var body []jen.Code
			if p.params != nil {
				body = append(body,
					jen.List(jen.Id("p"), jen.Id("ok")).Op(":=").Id("params").Assert(jen.Op("*").Add(goType(p.params))),
					jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.Nil(), jen.Id("paramsTypeError").Call(jen.Id("method"), jen.Id("params")))))
			}
			switch {
			case me.notification:
				body = append(body, jen.Return(jen.Nil(), jen.Id("h").Dot(name).Call(call...)))
			case !hasResult:
				body = append(body,
					jen.If(jen.Err().Op(":=").Id("h").Dot(name).Call(call...), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
					jen.Return(jen.Qual(jsontextPkg, "Value").Call(jen.Lit("null")), jen.Nil()))
			default:
				body = append(body,
					jen.List(jen.Id("r"), jen.Err()).Op(":=").Id("h").Dot(name).Call(call...),
					jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
					jen.Return(jen.Id("encodeResult").Call(jen.Id("method"), jen.Id("r"))))
			}
			callCases = append(callCases, jen.Case(jen.Id("Method"+name)).Block(body...))
		}
		f.Comment(side.doc)
		f.Type().Id(side.iface).Interface(sigs...)
		f.Line()
		f.Comment(fmt.Sprintf("%s answers every method with a MethodNotFound error; embed it in a %s to implement only some methods.", unimpl, side.iface))
		f.Type().Id(unimpl).Struct()
		f.Line()
		for _, b := range bases {
			f.Add(b)
		}
		decode, callFn, fn := "Decode"+side.iface+"Params", "Call"+side.iface, "Dispatch"+side.iface
		f.Comment(fmt.Sprintf("%s decodes the params of a method a %s receives: a pointer to its params type, or NoParams{} for a method without params (whatever params arrived are validated and ignored). Missing, null or invalid params are an InvalidParams *transport.Error naming the method (wrapping the *SyntaxError of invalid JSON); an unknown method is MethodNotFound.", decode, side.iface))
		f.Func().Id(decode).Params(jen.Id("method").String(), jen.Id("params").Index().Byte()).Params(jen.Any(), jen.Error()).Block(
			jen.Switch(jen.Id("method")).Block(decodeCases...),
			jen.Return(jen.Nil(), jen.Id("methodNotFound").Call(jen.Id("method"))))
		f.Line()
		f.Comment(fmt.Sprintf("%s calls the method of h for method with params as %s returned them and returns its encoded result (nil for notifications); an unknown method is MethodNotFound.", callFn, decode))
		f.Func().Id(callFn).Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("h").Id(side.iface), jen.Id("method").String(), jen.Id("params").Any()).
			Params(jen.Qual(jsontextPkg, "Value"), jen.Error()).Block(
			jen.Switch(jen.Id("method")).Block(callCases...),
			jen.Return(jen.Nil(), jen.Id("methodNotFound").Call(jen.Id("method"))))
		f.Line()
		f.Comment(fmt.Sprintf("%s decodes params for method (%s) and calls the matching method of h (%s).", fn, decode, callFn))
		f.Func().Id(fn).Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("h").Id(side.iface), jen.Id("method").String(), jen.Id("params").Qual(jsontextPkg, "Value")).
			Params(jen.Qual(jsontextPkg, "Value"), jen.Error()).Block(
			jen.List(jen.Id("p"), jen.Err()).Op(":=").Id(decode).Call(jen.Id("method"), jen.Id("params")),
			returnNilErr(),
			jen.Return(jen.Id(callFn).Call(jen.Id("ctx"), jen.Id("h"), jen.Id("method"), jen.Id("p"))))
		f.Line()
	}
	return nil
}

func returnNilErr() jen.Code {
	return jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err()))
}
