package api

// MethodBurst is lsp/burst: what a host's hooks tell the daemon of the
// model's tool calls, and the feedback the daemon gives back (see
// BurstParams).
const MethodBurst = "lsp/burst"

// The events of lsp/burst, in the order a turn sees them.
const (
	// BurstBeforeEdit: a tool is about to edit Files. Their texts now
	// are what they held before the burst (the first time each is
	// named in it).
	BurstBeforeEdit = "beforeEdit"
	// BurstAfterEdit: a tool edited Files. A file not named before the
	// edit gets Before's text, or the text a server last had of it, as
	// its text before the burst.
	BurstAfterEdit = "afterEdit"
	// BurstEnd: a tool that edits nothing is about to run, which ends
	// the burst: its feedback is made now, and kept for the host's next
	// BurstAfter (or given at once: BurstResult.Text).
	BurstEnd = "end"
	// BurstAfter: a tool that edits nothing ran: the feedback of the
	// burst it ended, if the host has not said it yet.
	BurstAfter = "after"
	// BurstStop: the model is about to end its turn. A turn with errors
	// that are new since it began is held once (BurstResult.Hold).
	BurstStop = "stop"
)

// BurstParams is lsp/burst's params. A burst is the edits between two of
// the model's other actions (a tool that edits nothing, the end of its
// turn); its feedback is the errors new since it began, in the files it
// edited and in every file those edits broke, each said once.
type BurstParams struct {
	// Session is the host's session (a model's conversation): bursts of
	// parallel sessions are kept apart. Empty: one session for the root.
	Session string `json:"session,omitzero"`
	// Event is one of the Burst… events.
	Event string `json:"event"`
	// Files are the files a tool edits (BurstBeforeEdit, BurstAfterEdit),
	// relative to the root or absolute.
	Files []string `json:"files,omitzero"`
	// Before are files' texts before the tool edited them, where the
	// host said (BurstAfterEdit): path → text.
	Before map[string]string `json:"before,omitzero"`
	// Each (BurstAfterEdit) gives the feedback now, after each edit,
	// rather than at the burst's end: still only what is new since the
	// burst began, with the files the edits broke.
	Each bool `json:"each,omitzero"`
	// TimeoutMs bounds a burst's check (its end, a stop, an Each);
	// 0: burstTimeoutMs of the configuration.
	TimeoutMs int `json:"timeoutMs,omitzero"`
}

// BurstResult is lsp/burst's answer.
type BurstResult struct {
	// Text is the feedback for the model, in lsp/report's blocks; empty
	// when there is nothing to say.
	Text string `json:"text"`
	// New are the errors new since the burst (or, at a stop, the turn)
	// began, by file.
	New FileDiagnostics `json:"new"`
	// Edited are the files the burst (or turn) edited.
	Edited []string `json:"edited"`
	// Checked counts the files checked: the edited ones and those that
	// depend on them.
	Checked int `json:"checked"`
	// Complete says whether every file the edits may affect was checked
	// before and after them; Reason says why not.
	Complete bool   `json:"complete"`
	Reason   string `json:"reason,omitempty"`
	// Hold (BurstStop) holds the turn: tell the model Text and let it go
	// on. A turn is held at most once; the next stop lets it end.
	Hold bool `json:"hold,omitzero"`
	// MS is how long the check took.
	MS int64 `json:"ms"`
}
