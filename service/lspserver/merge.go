package lspserver

import (
	"context"
	"slices"
	"strings"

	"github.com/lspkit/lspkit/protocol"
)

// Answers merged across the servers of a file: definitions (and their
// kin), hovers and completions. One server's answer passes as it is
// (definitions aside, given in the form the client takes); several are
// joined in server order.

// asLinks reads a definition-like answer as links: a location is a link
// whose target and selection are its range.
func asLinks(locs []protocol.Location, links []protocol.LocationLink) []protocol.LocationLink {
	out := slices.Clone(links)
	for _, l := range locs {
		out = append(out, protocol.LocationLink{TargetURI: l.URI, TargetRange: l.Range, TargetSelectionRange: l.Range})
	}
	return out
}

func definitionLinks(r protocol.Nullable[protocol.DefinitionOrDefinitionLinkSlice]) []protocol.LocationLink {
	v, ok := r.Get()
	if !ok {
		return nil
	}
	if links, ok := v.AsDefinitionLinkSlice(); ok {
		return links
	}
	d, _ := v.AsDefinition()
	if l, ok := d.AsLocation(); ok {
		return asLinks([]protocol.Location{l}, nil)
	}
	ls, _ := d.AsLocationSlice()
	return asLinks(ls, nil)
}

func declarationLinks(r protocol.Nullable[protocol.DeclarationResult]) []protocol.LocationLink {
	v, ok := r.Get()
	if !ok {
		return nil
	}
	if links, ok := v.AsDeclarationLinkSlice(); ok {
		return links
	}
	d, _ := v.AsDeclaration()
	if l, ok := d.AsLocation(); ok {
		return asLinks([]protocol.Location{l}, nil)
	}
	ls, _ := d.AsLocationSlice()
	return asLinks(ls, nil)
}

// uniqueLinks drops the links that point where an earlier one does.
func uniqueLinks(links []protocol.LocationLink) []protocol.LocationLink {
	var out []protocol.LocationLink
	for _, l := range links {
		if !slices.ContainsFunc(out, func(o protocol.LocationLink) bool {
			return o.TargetURI == l.TargetURI && o.TargetSelectionRange == l.TargetSelectionRange
		}) {
			out = append(out, l)
		}
	}
	return out
}

// locations are links as plain locations (their targets' selections),
// for a client that does not take links.
func locations(links []protocol.LocationLink) []protocol.Location {
	out := make([]protocol.Location, 0, len(links))
	for _, l := range links {
		out = append(out, protocol.Location{URI: l.TargetURI, Range: l.TargetSelectionRange})
	}
	return out
}

// takesLinks reports whether the client takes location links for method.
func (s *Server) takesLinks(method string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	td := s.clientCaps.TextDocument
	if td == nil {
		return false
	}
	var support *bool
	switch method {
	case protocol.DefinitionRequest.Method():
		if td.Definition != nil {
			support = td.Definition.LinkSupport
		}
	case protocol.TypeDefinitionRequest.Method():
		if td.TypeDefinition != nil {
			support = td.TypeDefinition.LinkSupport
		}
	case protocol.ImplementationRequest.Method():
		if td.Implementation != nil {
			support = td.Implementation.LinkSupport
		}
	case protocol.DeclarationRequest.Method():
		if td.Declaration != nil {
			support = td.Declaration.LinkSupport
		}
	}
	return support != nil && *support
}

// definitions asks every server of the file offering t's method and
// merges their targets, each once, as links or locations as the client
// takes them.
func definitions[P any](ctx context.Context, s *Server, uri protocol.DocumentURI, t protocol.RequestType[P, protocol.Nullable[protocol.DefinitionOrDefinitionLinkSlice]], params P) (protocol.Nullable[protocol.DefinitionOrDefinitionLinkSlice], error) {
	answers, _, err := eachFrom(ctx, s, uri, t, params)
	if err != nil || len(answers) == 0 {
		return protocol.Nullable[protocol.DefinitionOrDefinitionLinkSlice]{}, err
	}
	var links []protocol.LocationLink
	for _, a := range answers {
		links = append(links, definitionLinks(a.r)...)
	}
	links = uniqueLinks(links)
	if s.takesLinks(t.Method()) {
		return protocol.NewNullable(protocol.NewDefinitionOrDefinitionLinkSliceDefinitionLinkSlice(orEmpty(links))), nil
	}
	return protocol.NewNullable(protocol.NewDefinitionOrDefinitionLinkSliceDefinition(protocol.NewDefinitionLocationSlice(locations(links)))), nil
}

// TextDocumentDefinition asks every server of the file; their targets
// merged.
func (s *Server) TextDocumentDefinition(ctx context.Context, p *protocol.DefinitionParams) (protocol.Nullable[protocol.DefinitionOrDefinitionLinkSlice], error) {
	return definitions(ctx, s, p.TextDocument.URI, protocol.DefinitionRequest, *p)
}

// TextDocumentTypeDefinition asks every server of the file; their
// targets merged.
func (s *Server) TextDocumentTypeDefinition(ctx context.Context, p *protocol.TypeDefinitionParams) (protocol.Nullable[protocol.DefinitionOrDefinitionLinkSlice], error) {
	return definitions(ctx, s, p.TextDocument.URI, protocol.TypeDefinitionRequest, *p)
}

// TextDocumentImplementation asks every server of the file; their
// targets merged.
func (s *Server) TextDocumentImplementation(ctx context.Context, p *protocol.ImplementationParams) (protocol.Nullable[protocol.DefinitionOrDefinitionLinkSlice], error) {
	return definitions(ctx, s, p.TextDocument.URI, protocol.ImplementationRequest, *p)
}

// TextDocumentDeclaration asks every server of the file; their targets
// merged.
func (s *Server) TextDocumentDeclaration(ctx context.Context, p *protocol.DeclarationParams) (protocol.Nullable[protocol.DeclarationResult], error) {
	answers, _, err := eachFrom(ctx, s, p.TextDocument.URI, protocol.DeclarationRequest, *p)
	if err != nil || len(answers) == 0 {
		return protocol.Nullable[protocol.DeclarationResult]{}, err
	}
	var links []protocol.LocationLink
	for _, a := range answers {
		links = append(links, declarationLinks(a.r)...)
	}
	links = uniqueLinks(links)
	if s.takesLinks(protocol.DeclarationRequest.Method()) {
		return protocol.NewNullable(protocol.NewDeclarationResultDeclarationLinkSlice(orEmpty(links))), nil
	}
	return protocol.NewNullable(protocol.NewDeclarationResultDeclaration(protocol.NewDeclarationLocationSlice(locations(links)))), nil
}

// TextDocumentHover asks every server of the file offering hover; one
// answer passes as it is, several are joined (markdown, a rule between
// them, the first one's range).
func (s *Server) TextDocumentHover(ctx context.Context, p *protocol.HoverParams) (protocol.Nullable[protocol.Hover], error) {
	answers, _, err := eachFrom(ctx, s, p.TextDocument.URI, protocol.HoverRequest, *p)
	if err != nil || len(answers) == 0 {
		return protocol.Nullable[protocol.Hover]{}, err
	}
	var hovers []protocol.Hover
	for _, a := range answers {
		if h, ok := a.r.Get(); ok {
			hovers = append(hovers, h)
		}
	}
	switch len(hovers) {
	case 0:
		return protocol.Null[protocol.Hover](), nil
	case 1:
		return protocol.NewNullable(hovers[0]), nil
	}
	var parts []string
	for _, h := range hovers {
		if text := markdown(h.Contents); strings.TrimSpace(text) != "" {
			parts = append(parts, text)
		}
	}
	return protocol.NewNullable(protocol.Hover{
		Contents: protocol.NewHoverContentsMarkupContent(protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: strings.Join(parts, "\n\n---\n\n")}),
		Range:    hovers[0].Range,
	}), nil
}

// markdown is a hover's contents as markdown.
func markdown(c protocol.HoverContents) string {
	// A marked string (deprecated, still sent): a string, or code in a
	// language.
	//lint:ignore SA1019 servers still answer hovers with marked strings: read as sent
	marked := func(m protocol.MarkedString) string {
		if s, ok := m.AsString(); ok {
			return s
		}
		l, _ := m.AsMarkedStringWithLanguage()
		return "```" + l.Language + "\n" + l.Value + "\n```"
	}
	if mc, ok := c.AsMarkupContent(); ok {
		return mc.Value
	}
	if m, ok := c.AsMarkedString(); ok {
		return marked(m)
	}
	ms, _ := c.AsMarkedStringSlice()
	var parts []string
	for _, m := range ms {
		parts = append(parts, marked(m))
	}
	return strings.Join(parts, "\n\n")
}

// completionItems are a completion answer's items, each keeping its
// origin (the list's default data given to the items without their own),
// and whether the list is incomplete.
func completionItems(o origin, r protocol.Nullable[protocol.CompletionResult]) ([]protocol.CompletionItem, bool) {
	res, ok := r.Get()
	if !ok {
		return nil, false
	}
	if items, ok := res.AsCompletionItemSlice(); ok {
		for i := range items {
			items[i].Data = tag(o, items[i].Data)
		}
		return items, false
	}
	list, _ := res.AsCompletionList()
	var defaults protocol.CompletionItemDefaults
	if list.ItemDefaults != nil {
		defaults = *list.ItemDefaults
	}
	for i := range list.Items {
		it := &list.Items[i]
		if len(it.Data) == 0 {
			it.Data = defaults.Data
		}
		it.Data = tag(o, it.Data)
		if it.CommitCharacters == nil {
			it.CommitCharacters = defaults.CommitCharacters
		}
		if it.InsertTextFormat == nil {
			it.InsertTextFormat = defaults.InsertTextFormat
		}
		if it.InsertTextMode == nil {
			it.InsertTextMode = defaults.InsertTextMode
		}
	}
	return list.Items, list.IsIncomplete
}

// TextDocumentCompletion asks every server of the file offering
// completion and merges their items in server order, each keeping its
// origin for its resolve; the list is incomplete when one is.
func (s *Server) TextDocumentCompletion(ctx context.Context, p *protocol.CompletionParams) (protocol.Nullable[protocol.CompletionResult], error) {
	answers, _, err := eachFrom(ctx, s, p.TextDocument.URI, protocol.CompletionRequest, *p)
	if err != nil || len(answers) == 0 {
		return protocol.Nullable[protocol.CompletionResult]{}, err
	}
	list := protocol.CompletionList{Items: []protocol.CompletionItem{}}
	for _, a := range answers {
		items, incomplete := completionItems(origin{Server: a.server, URI: p.TextDocument.URI}, a.r)
		list.Items = append(list.Items, items...)
		list.IsIncomplete = list.IsIncomplete || incomplete
	}
	return protocol.NewNullable(protocol.NewCompletionResultCompletionList(list)), nil
}
