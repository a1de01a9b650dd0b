package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestParseColon: compiler positions are read from go vet's and clang's
// output, relative paths kept, other lines and (for clang) warnings left out.
func TestParseColon(t *testing.T) {
	out := []byte("# github.com/go-chi/chi/v5\n" +
		"vet: ./mux.go:130:30: fmt.Sprintf format %d has arg method of wrong type string\n" +
		"middleware/get_head.go:24:12: not enough arguments\n" +
		"cJSON.c:129:12: error: incompatible integer to pointer conversion\n" +
		"cJSON.c:12:1: warning: unused\n" +
		"note: something\n")
	got := parseColon(out, nil)
	want := []finding{{"mux.go", 130}, {"middleware/get_head.go", 24}, {"cJSON.c", 129}, {"cJSON.c", 12}}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	errorsOnly := parseColon(out, func(rest string) bool { return len(rest) > 6 && rest[:6] == "error:" })
	if !slices.Equal(errorsOnly, []finding{{"cJSON.c", 129}}) {
		t.Fatalf("errors only: %v", errorsOnly)
	}
	if file, line, ok := splitPos("/a/b:c/x.go:12:3"); !ok || file != "/a/b:c/x.go" || line != 12 {
		t.Fatalf("splitPos: %q %d %v", file, line, ok)
	}
}

// TestBreaksApply: every break's text occurs exactly once in its file.
func TestBreaksApply(t *testing.T) {
	for _, p := range projects {
		if p.fetch != nil {
			continue // from a registry: measure checks its breaks when it runs
		}
		for _, b := range p.breaks {
			data, err := readTestdata(p.dir, b.file)
			if err != nil {
				t.Fatal(err)
			}
			if n := countOf(data, b.old); n != 1 {
				t.Errorf("%s %s: %q occurs %d times in %s", p.name, b.kind, b.old, n, b.file)
			}
		}
	}
}

func readTestdata(dir, file string) (string, error) {
	data, err := os.ReadFile(filepath.Join("testdata", dir, filepath.FromSlash(file)))
	return string(data), err
}

func countOf(s, sub string) int { return strings.Count(s, sub) }
