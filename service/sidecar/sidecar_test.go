package sidecar

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// TestSidecarLog: a sidecar's output reaches the log a line at a time,
// tagged with its server, whatever the writes' boundaries.
func TestSidecarLog(t *testing.T) {
	t.Parallel()
	var buf strings.Builder
	l := &logLines{log: slog.New(slog.NewTextHandler(&buf, nil)), server: "luau", stream: "stderr"}
	for _, w := range []string{"first li", "ne\nsecond line\nthi", "rd\n"} {
		l.Write([]byte(w))
	}
	var got []string
	for line := range strings.Lines(buf.String()) {
		_, rest, _ := strings.Cut(line, "msg=")
		got = append(got, strings.TrimSpace(rest))
	}
	want := []string{
		`"sidecar output" server=luau stream=stderr line="first line"`,
		`"sidecar output" server=luau stream=stderr line="second line"`,
		`"sidecar output" server=luau stream=stderr line=third`,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("log:\n%s", strings.Join(got, "\n"))
	}
}
