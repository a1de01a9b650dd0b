package conformance

import (
	"fmt"
	"strings"
)

// Verdicts of a card's rows.
const (
	VerdictPass          = "pass"
	VerdictFail          = "fail"
	VerdictNotExercised  = "not exercised"
	evidenceSeparator    = " · "
	markdownPipeReplaced = `\|`
)

// Row is one check of a report card.
type Row struct {
	Check     string   `json:"check"`
	Verdict   string   `json:"verdict"`
	Count     int      `json:"count"`              // violations found
	Exercised int      `json:"exercised"`          // messages or facts it looked at
	Evidence  []string `json:"evidence,omitempty"` // the first offending messages, trimmed
}

// Card is a language server's report card: every check with its verdict,
// the notes (extensions, which are not violations), and who was checked.
type Card struct {
	Server        string `json:"server"`        // serverInfo.name, or the command
	ServerVersion string `json:"serverVersion"` // serverInfo.version
	Lspkit        string `json:"lspkit"`        // lspkit's version
	LSP           string `json:"lsp"`           // the meta model's LSP version
	// Stopped says where a session that could not run to its end stopped.
	Stopped string   `json:"stopped,omitempty"`
	Rows    []Row    `json:"rows"`
	Notes   []string `json:"notes,omitempty"`
}

// Passed and Failed count the rows of each verdict.
func (c *Card) Passed() int { return c.count(VerdictPass) }

// Failed counts the rows with violations.
func (c *Card) Failed() int { return c.count(VerdictFail) }

func (c *Card) count(v string) int {
	n := 0
	for _, r := range c.Rows {
		if r.Verdict == v {
			n++
		}
	}
	return n
}

// Score is the share of the exercised checks that pass, as "n/m".
func (c *Card) Score() string { return fmt.Sprintf("%d/%d", c.Passed(), c.Passed()+c.Failed()) }

// Violations counts every violation on the card.
func (c *Card) Violations() int {
	n := 0
	for _, r := range c.Rows {
		n += r.Count
	}
	return n
}

// Markdown renders the card for people: a heading, the score, a table of
// the checks, the notes.
func (c *Card) Markdown() string {
	var b strings.Builder
	name := c.Server
	if c.ServerVersion != "" {
		name += " " + c.ServerVersion
	}
	fmt.Fprintf(&b, "# %s\n\n", name)
	fmt.Fprintf(&b, "Score **%s** checks pass (%d violations); lspkit %s, LSP %s.\n\n", c.Score(), c.Violations(), c.Lspkit, c.LSP)
	if c.Stopped != "" {
		fmt.Fprintf(&b, "The session stopped early: %s\n\n", c.Stopped)
	}
	b.WriteString("| check | verdict | count | first evidence |\n|---|---|---|---|\n")
	for _, r := range c.Rows {
		ev := strings.ReplaceAll(strings.Join(r.Evidence, evidenceSeparator), "|", markdownPipeReplaced)
		ev = strings.ReplaceAll(ev, "\n", " ")
		fmt.Fprintf(&b, "| %s | %s | %d | %s |\n", r.Check, r.Verdict, r.Count, ev)
	}
	if len(c.Notes) > 0 {
		b.WriteString("\nNotes (not violations):\n\n")
		for _, n := range c.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	return b.String()
}
