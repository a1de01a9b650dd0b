// Package transport is the wire layer of lspkit: the LSP base protocol's
// Content-Length framing and a bidirectional JSON-RPC 2.0 connection.
//
// [Reader] parses frames without allocating and lends each body until the
// next read; [Writer] writes a frame with one Write call and no allocation in
// steady state; [Envelope] classifies a message and finds its id, method and
// raw params, result and error in one pass, also without allocating. [Conn]
// builds calls, notifications, cancellation and concurrent request handling
// on top of them.
//
// The package knows JSON-RPC and the LSP framing, not the LSP methods: the
// only LSP-specific names it uses are $/cancelRequest and the
// RequestCancelled error code.
package transport
