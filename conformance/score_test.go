package conformance

import (
	"path/filepath"
	"testing"

	"github.com/lspkit/lspkit/protocol"
)

// TestScoreRecordedTranscripts: the recorded sessions of lspkit with real
// servers score offline; lspkit's own messages are clean in every one, and
// the checks a session exercises are exercised.
func TestScoreRecordedTranscripts(t *testing.T) {
	v := protocol.NewValidator()
	files, _ := filepath.Glob("testdata/*.jsonl")
	if len(files) < 10 {
		t.Fatalf("%d transcripts", len(files))
	}
	for _, file := range files {
		tr, err := ReadTranscript(file)
		if err != nil {
			t.Fatal(err)
		}
		card := ScoreTranscript(v, tr, Facts{})
		for _, r := range card.Rows {
			if r.Check == CheckClientTypes && r.Verdict != VerdictPass {
				t.Errorf("%s: lspkit's own messages: %+v", file, r)
			}
			if (r.Check == CheckServerTypes || r.Check == CheckBeforeInitialize || r.Check == CheckAnswered) && r.Verdict == VerdictNotExercised {
				t.Errorf("%s: %s not exercised", file, r.Check)
			}
		}
		t.Logf("%s:\n%s", filepath.Base(file), card.Markdown())
	}
}
