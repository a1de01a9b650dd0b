// Package client drives one language-server process for one workspace root.
//
// [Process] is the server process itself: its own process group, killed
// with its parent (Linux Pdeathsig), stderr kept in a bounded ring for error
// reports, and a stop that escalates from SIGTERM to SIGKILL for the whole
// group so no process of it survives.
//
// [Client] is the LSP session on top: initialize with the capabilities this
// client implements, initialized and didChangeConfiguration, every request
// the server sends answered (configuration by section with {} defaults,
// registrations kept by id, work-done progress tracked for [Client.Busy],
// workspace folders, message requests, edits refused unless a handler is
// configured, refreshes), states observable with their reason, and
// [Client.Shutdown] as shutdown → exit → SIGTERM → SIGKILL.
package client
