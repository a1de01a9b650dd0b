package api

import "github.com/go-json-experiment/json/jsontext"

// Candidate is one place a symbol named without a line could mean: the
// data of a CodeUnresolved error.
type Candidate struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Character int    `json:"character"`
	Kind      string `json:"kind"`
	// Path is the symbol's dotted path: its containers and its name.
	Path string `json:"path"`
}

// Unresolved is a CodeUnresolved error's data: the candidates of an
// ambiguous symbol, or the names nearest to one that matched nothing.
type Unresolved struct {
	Candidates []Candidate `json:"candidates,omitempty"`
	Nearest    []string    `json:"nearest,omitempty"`
}

// HighlightsResult is lsp/documentHighlights' answer: the places in the
// file where the symbol at the position occurs.
type HighlightsResult struct {
	Highlights []Highlight `json:"highlights"`
	Note       string      `json:"note,omitempty"` // as LocationsResult's
}

// Highlight is one occurrence of a symbol in its file.
type Highlight struct {
	Location
	// Kind is "read", "write" or "text" (a textual match).
	Kind string `json:"kind,omitempty"`
}

// SignatureHelpResult is lsp/signatureHelp's answer: the signatures of the
// call around the position (none outside a call), the active one first.
type SignatureHelpResult struct {
	Signatures []Signature `json:"signatures"`
	Note       string      `json:"note,omitempty"` // as LocationsResult's
}

// Signature is one signature of a call.
type Signature struct {
	Label         string   `json:"label"`
	Documentation string   `json:"documentation,omitempty"`
	Parameters    []string `json:"parameters,omitempty"`
	// ActiveParameter is the 0-based index of the parameter at the
	// position, absent when none is.
	ActiveParameter *int `json:"activeParameter,omitempty"`
}

// InlayHintsParams is lsp/inlayHints' params: a file and its lines
// StartLine to EndLine (1-based, inclusive; both absent: the whole file).
type InlayHintsParams struct {
	File      string `json:"file"`
	StartLine int    `json:"startLine,omitzero"`
	EndLine   int    `json:"endLine,omitzero"`
}

// InlayHintsResult is lsp/inlayHints' answer: the hints, and the lines with
// each hint written into them between « and », numbered.
type InlayHintsResult struct {
	Text  string      `json:"text"`
	Hints []InlayHint `json:"hints"`
	Note  string      `json:"note,omitempty"`
}

// InlayHint is one hint: an inferred type or a parameter name, at the
// 1-based place it would be shown.
type InlayHint struct {
	Line      int    `json:"line"`
	Character int    `json:"character"`
	Label     string `json:"label"`
	// Kind is "type", "parameter" or "" (other).
	Kind string `json:"kind,omitempty"`
}

// Type-hierarchy directions.
const (
	DirectionSupertypes = "supertypes" // what the type extends or implements
	DirectionSubtypes   = "subtypes"   // what extends or implements it
)

// TypeHierarchyParams is lsp/typeHierarchy's params.
type TypeHierarchyParams struct {
	PositionParams
	Direction string `json:"direction"` // DirectionSupertypes or DirectionSubtypes
}

// TypeHierarchyResult is lsp/typeHierarchy's answer.
type TypeHierarchyResult struct {
	// Type is the type at the position, as the server names it ("" when
	// there is none).
	Type  string         `json:"type,omitempty"`
	Types []TypeLocation `json:"types"`
	Note  string         `json:"note,omitempty"`
}

// TypeLocation is a type of a type hierarchy and where it is declared.
type TypeLocation struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Detail string `json:"detail,omitempty"`
	Location
}

// CompletionParams is lsp/completion's params: a position (character may
// be one past the line's end), an optional prefix the labels must start
// with (case-insensitive), how many to return (default 20), and whether
// to resolve their documentation.
type CompletionParams struct {
	PositionParams
	Prefix  string `json:"prefix,omitzero"`
	Limit   int    `json:"limit,omitzero"`
	Resolve bool   `json:"resolve,omitzero"`
}

// CompletionResult is lsp/completion's answer: the first Limit items in
// the server's order, and how many there were.
type CompletionResult struct {
	Items []CompletionItem `json:"items"`
	Total int              `json:"total"`
	// Incomplete: the server would give more for a longer prefix.
	Incomplete bool   `json:"incomplete,omitempty"`
	Note       string `json:"note,omitempty"`
}

// CompletionItem is one completion.
type CompletionItem struct {
	Label  string `json:"label"`
	Kind   string `json:"kind,omitempty"`
	Detail string `json:"detail,omitempty"`
	// Insert is the text inserted when it differs from the label.
	Insert        string `json:"insert,omitempty"`
	Documentation string `json:"documentation,omitempty"`
	Deprecated    bool   `json:"deprecated,omitempty"`
}

// SymbolContextResult is lsp/symbolContext's answer: what an agent asks
// about a symbol first, in one answer of bounded size. A part that could
// not be had is named in Missing with the reason.
type SymbolContextResult struct {
	Symbol string `json:"symbol"`
	Kind   string `json:"kind,omitempty"`
	// Definition is where it is defined and Source the definition's
	// lines from there (at most 40; Truncated when there are more).
	Definition *Location `json:"definition,omitempty"`
	Source     string    `json:"source,omitempty"`
	Truncated  bool      `json:"truncated,omitempty"`
	Hover      string    `json:"hover,omitempty"`
	// References are grouped by file, the tests' files last; at most 100
	// are listed (ReferencesTotal counts them all).
	References      []FileReferences `json:"references"`
	ReferencesTotal int              `json:"referencesTotal"`
	// Callers are the incoming calls, at most 50 (CallersTotal).
	Callers      []Call            `json:"callers,omitempty"`
	CallersTotal int               `json:"callersTotal,omitempty"`
	Missing      map[string]string `json:"missing,omitempty"`
	Note         string            `json:"note,omitempty"`
}

// FileReferences is the references in one file.
type FileReferences struct {
	File  string `json:"file"`
	Test  bool   `json:"test,omitempty"`
	Lines []int  `json:"lines"`
}

// BatchParams is lsp/batch's params: questions of the read-only methods
// (at most MaxBatch), answered concurrently.
type BatchParams struct {
	Questions []Question `json:"questions"`
}

// MaxBatch is the most questions one batch holds.
const MaxBatch = 20

// BatchMethods are the methods a batch may ask: those that write nothing.
var BatchMethods = []string{
	MethodCheck, MethodDiagnostics, MethodStatus,
	MethodDefinition, MethodTypeDefinition, MethodImplementation, MethodDeclaration, MethodReferences,
	MethodHover, MethodDocumentSymbols, MethodWorkspaceSymbols, MethodCallHierarchy, MethodTypeHierarchy,
	MethodDocumentHighlights, MethodSignatureHelp, MethodInlayHints, MethodCompletion, MethodSymbolContext,
	MethodCodeActions,
}

// Question is one question of a batch: a method of the contract and its
// params.
type Question struct {
	Method string         `json:"method"`
	Params jsontext.Value `json:"params,omitzero"`
}

// BatchResult is lsp/batch's answer: one answer per question, in order.
type BatchResult struct {
	Answers []Answer `json:"answers"`
}

// Answer is a batch question's result or its error.
type Answer struct {
	Result any          `json:"result,omitempty"`
	Error  *AnswerError `json:"error,omitempty"`
}

// AnswerError is a failed question's JSON-RPC error.
type AnswerError struct {
	Code    int64          `json:"code"`
	Message string         `json:"message"`
	Data    jsontext.Value `json:"data,omitzero"`
}
