package registry

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// A proxy is a program found on PATH in a server's name that runs the
// real server from a toolchain manager's choice: rustup's proxies, pyenv's,
// asdf's and mise's shims, corepack's. Found is not installed: the real
// program may be missing for the version in force, and the proxy then
// exits at once with its own message. Where its message is one of those
// below, the Diagnosis names the command that fixes it.
type proxy struct {
	name string
	// is reports whether path (target: path with its symlinks resolved;
	// head: the first bytes of target) is one of this manager's proxies.
	is func(path, target string, head []byte) bool
	// cures map a line of its stderr to the fix.
	cures []cure
}

// cure is one message of a proxy's and what fixes it.
type cure struct {
	line *regexp.Regexp
	// fix is the command (or step) that fixes it, from the line's
	// submatches and the lines after it.
	fix func(m []string, after []string) string
}

// proxies are the toolchain managers whose stand-ins lspkit recognizes.
var proxies = []proxy{
	{
		name: "rustup",
		is: func(path, target string, _ []byte) bool {
			b := strings.TrimSuffix(filepath.Base(target), ".exe")
			return b == "rustup" || b == "rustup-init" || sameAsSibling(path, "rustup")
		},
		cures: []cure{
			{regexp.MustCompile(`^error: Unknown binary '([^']+?)(?:\.exe)?' in official toolchain '([^']+)'`),
				func(m, _ []string) string { return "rustup component add " + m[1] }},
			{regexp.MustCompile(`^error: '([^']+?)(?:\.exe)?' is not installed for the toolchain '([^']+)'`),
				func(m, _ []string) string { return "rustup component add " + m[1] + " --toolchain " + m[2] }},
			{regexp.MustCompile(`^error: toolchain '([^']+)' is not installed`),
				func(m, _ []string) string { return "rustup toolchain install " + m[1] }},
		},
	},
	{
		name: "pyenv",
		is: func(path, _ string, head []byte) bool {
			return bytes.Contains(head, []byte("pyenv")) && bytes.Contains(head, []byte(" exec "))
		},
		cures: []cure{
			{regexp.MustCompile(`^pyenv: ([^:]+): command not found`), func(m, after []string) string {
				// "The `X' command exists in these Python versions:" and
				// the versions, indented, follow.
				for i, l := range after {
					if strings.Contains(l, "command exists in these Python versions") && i+1 < len(after) {
						if v := strings.TrimSpace(after[i+1]); v != "" {
							return fmt.Sprintf("pip install it into the active Python, or select one that has it: pyenv global %s", v)
						}
					}
				}
				return "pip install " + m[1] + " into the active Python (pyenv version names it)"
			}},
		},
	},
	{
		name: "asdf",
		is: func(path, _ string, head []byte) bool {
			return bytes.Contains(head, []byte("asdf")) && bytes.Contains(head, []byte(" exec "))
		},
		cures: []cure{
			{regexp.MustCompile(`^No version is set for command (\S+)`),
				func(m, _ []string) string {
					return "asdf set <plugin> <version> in the project (asdf list all <plugin> names them)"
				}},
			{regexp.MustCompile(`^unknown command: (\S+?)\.? Perhaps you have to reshim\?`),
				func(m, _ []string) string { return "asdf reshim" }},
		},
	},
	{
		name: "mise",
		is: func(path, target string, _ []byte) bool {
			return strings.TrimSuffix(filepath.Base(target), ".exe") == "mise" ||
				strings.Contains(filepath.ToSlash(path), "/mise/shims/")
		},
		cures: []cure{
			{regexp.MustCompile(`No version is set for shim: (\S+)`),
				func(m, _ []string) string {
					return "mise use <tool>@<version> in the project (mise ls-remote <tool> names them)"
				}},
			{regexp.MustCompile(`(?i)^mise (?:error|ERROR) (.*?)(?:is not installed)`),
				func(m, _ []string) string { return "mise install" }},
		},
	},
	{
		name: "corepack",
		is: func(path, target string, _ []byte) bool {
			return strings.Contains(filepath.ToSlash(target), "/corepack/")
		},
		cures: []cure{
			{regexp.MustCompile(`Corepack must currently be enabled`),
				func(m, _ []string) string { return "corepack enable" }},
			{regexp.MustCompile(`^Usage Error: This project is configured to use (\S+)`),
				func(m, _ []string) string {
					return "corepack install (or use " + m[1] + ", which the project's packageManager names)"
				}},
		},
	},
}

// sameAsSibling reports whether path is the program name (or name.exe)
// beside it under another name: rustup's proxies are hard links to rustup
// on Windows, symbolic links elsewhere, and os.SameFile sees both.
func sameAsSibling(path, name string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	for _, n := range []string{name, name + ".exe"} {
		if si, err := os.Stat(filepath.Join(filepath.Dir(path), n)); err == nil && os.SameFile(fi, si) {
			return true
		}
	}
	return false
}

// Diagnosis is what lspkit knows of a server that exited before it
// started.
type Diagnosis struct {
	// Proxy names the toolchain manager whose stand-in the server's
	// command is (rustup, pyenv, asdf, mise, corepack), or "".
	Proxy string
	// Missing is set when the proxy said the real program is not
	// installed for the version in force.
	Missing bool
	// Fix is the command that fixes it, when known.
	Fix string
}

// ProxyOf names the toolchain manager whose stand-in path is, or "".
func ProxyOf(path string) string {
	target := path
	if t, err := filepath.EvalSymlinks(path); err == nil {
		target = t
	}
	var head []byte
	if f, err := os.Open(target); err == nil {
		buf := make([]byte, 1024)
		n, _ := f.Read(buf)
		f.Close()
		// A script's first KiB; a binary's is not read as one.
		if n > 2 && buf[0] == '#' && buf[1] == '!' {
			head = buf[:n]
		}
	}
	for _, p := range proxies {
		if p.is(path, target, head) {
			return p.name
		}
	}
	return ""
}

// Diagnose says what a server binary at path that exited at start with
// stderr lines is, and what fixes it, where lspkit knows.
func Diagnose(path string, stderr []string) Diagnosis {
	d := Diagnosis{Proxy: ProxyOf(path)}
	for _, p := range proxies {
		if p.name != d.Proxy {
			continue
		}
		for i, l := range stderr {
			l = strings.TrimSpace(l)
			for _, c := range p.cures {
				if m := c.line.FindStringSubmatch(l); m != nil {
					d.Missing, d.Fix = true, c.fix(m, stderr[i+1:])
					return d
				}
			}
		}
	}
	return d
}
