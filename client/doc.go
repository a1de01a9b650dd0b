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
//
// Documents are the caller's text: [Client.Sync] opens or changes one (full
// or minimal incremental edits, columns in the server's position encoding),
// [Client.Save], [Client.CloseDocument] (its diagnostics kept until the
// server says more) and [Client.ForgetDocument] (a file that is gone)
// finish the set. Diagnostics are kept per URI from push and pull, merged
// (per document with result ids and related documents, and a standing
// workspace/diagnostic request where the server offers it), under
// canonical URIs. [Client.Diagnose] sends a text and returns the server's
// findings for exactly that text once the server is done with it, by the
// signal its [SettlePolicy] names (a command that returns when every wave
// is published, tsserver's own answer, a pull answer, or publishes
// followed by a quiet window); checks of one document take turns, so each
// answer is for its own text. [Client.DiagnoseSaved] adds didSave for text
// that is the file's content. [Client.WaitSettled] waits the same way for
// a version already sent.
//
// When the server registers workspace/didChangeWatchedFiles, an fsnotify
// watcher over the root matches its glob patterns and watch kinds and sends
// the changes in brief batches; new directories are watched as they appear,
// .git and node_modules only when a pattern names them. A [Watcher] is one
// such watcher shared by a workspace's clients ([Config].Watcher): its
// owner passes each batch to [Client.FilesChanged], and [Watcher.Flush] is
// a barrier — it returns once every change the kernel had queued when it
// was called has been passed on (a marker file renamed in a private
// directory comes back through the same queue, after what came before).
package client
