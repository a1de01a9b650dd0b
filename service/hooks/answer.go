package hooks

import (
	"github.com/go-json-experiment/json"
)

// Answer is what lspkit tells the model through a hook: Context, read
// with the tool's result (after a tool; before one, where the host shows
// it then); or Hold, which keeps the model's turn going with this text.
type Answer struct {
	Context string
	Hold    string
}

// Write renders a for ev in the shape of the host ev.Answer names: what
// to print on stdout (nil: nothing) and the exit status. Every host takes
// exit 0 with JSON; nothing at all is "go on".
func Write(ev Event, a Answer) (stdout []byte, exit int) {
	var out any
	switch {
	case a.Hold != "" && ev.Kind == Stop:
		out = hold(ev.Answer, a.Hold)
	case a.Context != "" && ev.Kind != Stop:
		out = context(ev, a.Context)
	case ev.Answer == Cursor && ev.Kind == BeforeTool:
		out = map[string]any{"permission": "allow"} // Cursor's before-hooks answer a permission
	}
	if out == nil {
		return nil, 0
	}
	data, err := json.Marshal(out, json.Deterministic(true))
	if err != nil {
		return nil, 0
	}
	return append(data, '\n'), 0
}

// hold is the host's way to keep the turn going with text.
func hold(host, text string) any {
	switch host {
	case Gemini:
		return map[string]any{"decision": "deny", "reason": text} // AfterAgent: the turn runs again with the reason
	case Cursor:
		return map[string]any{"followup_message": text}
	case Opencode, Kilo:
		return map[string]any{"hold": text}
	}
	// Claude Code, Codex, Qwen Code, Droid (Stop) and Copilot CLI
	// (agentStop, or Stop when it runs Claude Code's hooks).
	return map[string]any{"decision": "block", "reason": text}
}

// context is the host's way to add text to what the model reads with a
// tool's result.
func context(ev Event, text string) any {
	switch ev.Answer {
	case Copilot:
		return map[string]any{"additionalContext": text}
	case Opencode, Kilo:
		return map[string]any{"context": text}
	case Cursor:
		return nil // Cursor reads nothing of a hook's after a tool: its stop says it
	}
	// Claude Code, Codex (whose schema is strict: hookEventName is
	// required, nothing else may be there), Gemini CLI, Qwen Code, Droid.
	return map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": ev.name, "additionalContext": text}}
}
