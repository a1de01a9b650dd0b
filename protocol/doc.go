// Package protocol is the Language Server Protocol as typed Go, generated from
// the official LSP meta model (metaModel.json at the repository root) by the
// generator in ../gen.
//
// Every structure, enumeration, type alias, request and notification of the
// model has a generated counterpart:
//
//   - Structures are flattened Go structs (extends and mixins are copied in,
//     never embedded) whose decoders reject missing or null required
//     properties. Optional properties are pointers, nil slices and maps, or
//     unset unions, all tagged omitzero so absent stays absent.
//   - "T | null" is [Nullable], so absent, null and the zero value are three
//     different things. Required slices encode as [], never null.
//   - Other unions are closed sum types with constructors (NewXxx), Kind and
//     AsXxx accessors; their decoders pick the alternative by JSON token kind,
//     then by a discriminating key or literal value chosen at generation time,
//     then by the most specific shape. A value that matches no alternative is an
//     error naming the union.
//   - Enumerations are named types with prefixed constants, String and IsKnown.
//     Values outside a closed enumeration are decoding errors; open ones
//     (supportsCustomValues) accept anything.
//   - LSPAny, LSPObject and LSPArray are raw JSON.
//   - Each request and notification has a method constant, a typed descriptor
//     ([RequestType], [NotificationType]) and an entry for [LookupMethod];
//     [Server] and [Client] are the typed interfaces per direction, and
//     [DispatchServer] and [DispatchClient] route raw params to them.
//
// [Validator] checks a message part against the model and reports every
// problem with its JSON path (lspkit conform's type checks); the decoders
// stop at the first. Decoded values of one message share memory: their
// strings are copied into a few chunks, and the scalars optional members
// point to come from slabs, so a value kept alive keeps its chunk alive.
//
// JSON goes through github.com/go-json-experiment/json (the encoding/json/v2
// API); generated types implement its streaming UnmarshalJSONFrom and
// MarshalJSONTo methods, so use that package (or encoding/json/v2) to encode
// and decode them.
package protocol

//go:generate go run ../gen -model ../metaModel.json -out .
