// Package hooks speaks the agent hosts' hook protocols (`lspkit hook
// HOST`): each host's payload read into one Event — a tool about to run
// or just run, whether it edits files and which, the end of the model's
// turn — and lspkit's answer written in the host's own shape: context the
// model reads with a tool's result, or the turn held with a reason.
//
// The shapes are the hosts' as shipped (docs/hosts.md, "Hooks"): Claude
// Code, Codex, Copilot CLI, Gemini CLI, Qwen Code, Droid and Cursor run a
// command with JSON on its stdin; opencode and Kilo run lspkit's plugin,
// which passes lspkit a JSON of its own (Event's fields, by name).
package hooks

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The hosts whose hooks lspkit speaks.
const (
	ClaudeCode = "claude-code"
	Codex      = "codex"
	Copilot    = "copilot"
	Gemini     = "gemini"
	Qwen       = "qwen"
	Droid      = "droid"
	Cursor     = "cursor"
	Opencode   = "opencode"
	Kilo       = "kilo"
)

// Hosts are the hosts' names, as `lspkit hook HOST` takes them.
var Hosts = []string{ClaudeCode, Codex, Copilot, Gemini, Qwen, Droid, Cursor, Opencode, Kilo}

// Kind is what a hook event is.
type Kind int

// The kinds of event lspkit acts on.
const (
	// Ignored: an event lspkit has nothing to do for.
	Ignored Kind = iota
	// BeforeTool: a tool is about to run.
	BeforeTool
	// AfterTool: a tool ran.
	AfterTool
	// Stop: the model is about to end its turn.
	Stop
)

// Event is a host's hook payload as lspkit reads it.
type Event struct {
	Kind Kind
	// Tool is the tool's name as the host gave it.
	Tool string
	// Edit says the tool edits files: Files (absolute, or relative to
	// CWD).
	Edit  bool
	Files []string
	// Before are edited files' texts before the edit, where the host
	// said them (Claude Code's originalFile; what Cursor's edits undo).
	Before map[string]string
	// Session is the host's session: parallel agents' bursts apart.
	Session string
	// CWD is the session's working directory; Project the project
	// directory the host names, if it does.
	CWD, Project string
	// Pattern is a Grep's pattern (Claude Code), for lspkit's hint.
	Pattern string
	// Answer is the shape lspkit's answer takes: the host's, or
	// Copilot's when Copilot CLI runs Claude Code's hooks.
	Answer string
	// name is the host's own name of the event, for the answer.
	name string
}

// Env looks up an environment variable (os.Getenv).
type Env func(string) string

// Read reads host's hook payload. event is the event's name where the
// host does not put it in the payload (Copilot CLI: `lspkit hook copilot
// postToolUse`); env is the hook process's environment.
func Read(host, event string, data []byte, env Env) (Event, error) {
	if !slices.Contains(Hosts, host) {
		return Event{}, fmt.Errorf("unknown host %q (expected %s)", host, strings.Join(Hosts, ", "))
	}
	var p payload
	if err := json.Unmarshal(data, &p, json.RejectUnknownMembers(false)); err != nil {
		return Event{}, fmt.Errorf("the hook's input is not %s's JSON: %w", host, err)
	}
	ev := Event{Answer: host, Session: first(p.SessionID, p.SessionIDCamel, p.SessionIDUpper, p.ConversationID), CWD: first(p.CWD, p.Directory),
		Tool: first(p.ToolName, p.ToolNameCamel, p.Tool), Project: projectOf(host, p, env)}
	name := first(event, p.HookEventName, p.HookEventNameCamel, p.Event)
	ev.name = name
	switch host {
	case ClaudeCode:
		if env("COPILOT_CLI") == "1" {
			ev.Answer = Copilot // Copilot CLI runs .claude/settings.json's hooks, and reads only its own answers after a tool
		}
	}
	switch strings.ToLower(name) {
	case "pretooluse", "beforetool", "before":
		ev.Kind = BeforeTool
	case "posttooluse", "aftertool", "after":
		ev.Kind = AfterTool
	case "stop", "agentstop", "afteragent", "idle":
		ev.Kind = Stop
	case "afterfileedit": // Cursor: after an edit, and only then
		ev.Kind, ev.Edit = AfterTool, true
	case "beforeshellexecution", "beforemcpexecution", "beforereadfile": // Cursor's other tools
		ev.Kind = BeforeTool
	default:
		return ev, nil
	}
	if ev.Kind == Stop {
		return ev, nil
	}
	input := p.ToolInput
	if len(input) == 0 {
		input = p.ToolArgs
	}
	if len(input) == 0 {
		input = p.Args
	}
	args := argsOf(input)
	ev.Pattern, _ = args["pattern"].(string)
	if ev.Edit { // Cursor's afterFileEdit
		ev.Files = []string{p.FilePath}
		if before, ok := undoEdits(p.FilePath, p.Edits); ok {
			ev.Before = map[string]string{p.FilePath: before}
		}
		return ev, nil
	}
	ev.Edit = editTools[host][ev.Tool]
	if !ev.Edit {
		return ev, nil
	}
	for _, key := range []string{"file_path", "filePath", "path", "notebook_path"} {
		if f, ok := args[key].(string); ok && f != "" {
			ev.Files = append(ev.Files, f)
			break
		}
	}
	for _, key := range []string{"command", "input", "patch"} {
		if patch, ok := args[key].(string); ok && strings.Contains(patch, "*** Begin Patch") {
			ev.Files = append(ev.Files, PatchFiles(patch)...)
		}
	}
	if ev.Kind == AfterTool {
		// Claude Code's result carries the file as it was.
		var res struct {
			FilePath     string  `json:"filePath"`
			OriginalFile *string `json:"originalFile"`
			Type         string  `json:"type"`
		}
		if json.Unmarshal(p.ToolResponse, &res) == nil && res.OriginalFile != nil && res.FilePath != "" {
			ev.Before = map[string]string{res.FilePath: *res.OriginalFile}
		}
	}
	return ev, nil
}

// payload is every host's hook JSON, the members lspkit reads.
type payload struct {
	// Claude Code, Codex, Gemini CLI, Qwen Code, Droid; Copilot CLI
	// running Claude Code's hooks.
	HookEventName string         `json:"hook_event_name"`
	SessionID     string         `json:"session_id"`
	CWD           string         `json:"cwd"`
	ToolName      string         `json:"tool_name"`
	ToolInput     jsontext.Value `json:"tool_input"`
	ToolResponse  jsontext.Value `json:"tool_response"`
	// Copilot CLI's own hooks.
	HookEventNameCamel string         `json:"hookEventName"`
	SessionIDCamel     string         `json:"sessionId"`
	ToolNameCamel      string         `json:"toolName"`
	ToolArgs           jsontext.Value `json:"toolArgs"`
	// Cursor.
	ConversationID string     `json:"conversation_id"`
	WorkspaceRoots []string   `json:"workspace_roots"`
	FilePath       string     `json:"file_path"`
	Edits          []undoable `json:"edits"`
	// lspkit's opencode and Kilo plugin.
	Event          string         `json:"event"`
	SessionIDUpper string         `json:"sessionID"`
	Tool           string         `json:"tool"`
	Args           jsontext.Value `json:"args"`
	Directory      string         `json:"directory"`
}

// undoable is one of Cursor's edits: old_string became new_string.
type undoable struct {
	Old string `json:"old_string"`
	New string `json:"new_string"`
}

// argsOf decodes a tool's arguments: an object, or a JSON string holding
// one (Copilot CLI's toolArgs, as some versions send them).
func argsOf(raw jsontext.Value) map[string]any {
	args := map[string]any{}
	if json.Unmarshal(raw, &args) == nil {
		return args
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		json.Unmarshal([]byte(s), &args)
	}
	return args
}

// projectOf is the project directory the host names: its variable, or
// Cursor's first workspace root.
func projectOf(host string, p payload, env Env) string {
	switch host {
	case Gemini:
		return first(env("GEMINI_PROJECT_DIR"), env("CLAUDE_PROJECT_DIR"))
	case Droid:
		return first(env("FACTORY_PROJECT_DIR"), env("CLAUDE_PROJECT_DIR"))
	case Cursor:
		if len(p.WorkspaceRoots) > 0 {
			return p.WorkspaceRoots[0]
		}
		return env("CURSOR_PROJECT_DIR")
	case Opencode, Kilo:
		return p.Directory
	}
	return env("CLAUDE_PROJECT_DIR")
}

// editTools are, by host, the tools that edit files, as the host names
// them to its hooks.
var editTools = map[string]map[string]bool{
	// Copilot CLI names its own tools to Claude Code's hooks by Claude's
	// names (edit → Edit, create → Write).
	ClaudeCode: {"Edit": true, "MultiEdit": true, "Write": true, "NotebookEdit": true},
	Codex:      {"apply_patch": true},
	Copilot:    {"edit": true, "create": true, "apply_patch": true},
	Gemini:     {"replace": true, "write_file": true},
	Qwen:       {"edit": true, "write_file": true, "notebook_edit": true},
	Droid:      {"Create": true, "Edit": true, "MultiEdit": true, "ApplyPatch": true},
	Opencode:   {"edit": true, "write": true, "patch": true, "apply_patch": true, "multiedit": true},
	Kilo:       {"edit": true, "write": true, "patch": true, "apply_patch": true, "multiedit": true},
}

// EditTools are host's tools that edit files.
func EditTools(host string) []string {
	return slices.Sorted(func(yield func(string) bool) {
		for t := range editTools[host] {
			if !yield(t) {
				return
			}
		}
	})
}

// PatchFiles are the files an apply_patch patch adds, updates, deletes or
// moves to ("*** Update File: PATH" and its kin), in order, each once.
func PatchFiles(patch string) []string {
	var out []string
	for line := range strings.SplitSeq(patch, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, prefix := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if f, ok := strings.CutPrefix(line, prefix); ok {
				if f = strings.TrimSpace(f); f != "" && !slices.Contains(out, f) {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// undoEdits is the text a file held before Cursor's edits of it: each
// edit's new_string put back to its old_string, last edit first. ok is
// false when a new_string is not in the file as it is now.
func undoEdits(file string, edits []undoable) (string, bool) {
	if len(edits) == 0 || file == "" {
		return "", false
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", false
	}
	text := string(data)
	for _, e := range slices.Backward(edits) {
		i := strings.LastIndex(text, e.New)
		if i < 0 {
			return "", false
		}
		text = text[:i] + e.Old + text[i+len(e.New):]
	}
	return text, true
}

func first(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
