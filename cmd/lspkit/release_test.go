//go:build linux

package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
)

// The release channels, proven on a snapshot of them: LSPKIT_RELEASE_DIST
// names the dist directory scripts/release-snapshot.sh built (nothing of
// it is published).

// releaseDist is the snapshot's dist directory and its version, or the
// test is skipped.
func releaseDist(t *testing.T) (dir, version string) {
	t.Helper()
	dir = os.Getenv("LSPKIT_RELEASE_DIST")
	if dir == "" {
		t.Skip("LSPKIT_RELEASE_DIST (a dist directory scripts/release-snapshot.sh built) not set")
	}
	data, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &meta); err != nil || meta.Version == "" {
		t.Fatalf("metadata.json: %v %s", err, data)
	}
	return dir, meta.Version
}

// checksums reads checksums.txt: SHA-256 by file name.
func checksums(t *testing.T, dir string) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	for s := bufio.NewScanner(f); s.Scan(); {
		sum, name, ok := strings.Cut(s.Text(), "  ")
		if !ok {
			t.Fatalf("checksums.txt line %q", s.Text())
		}
		sums[name] = sum
	}
	return sums
}

func sha256File(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// TestReleaseArchives: an archive for each of linux, darwin, windows and
// freebsd on amd64 and arm64 (zip on Windows), each holding the binary
// and README.md, every file checksums.txt lists matching its SHA-256, the
// .deb and .rpm for both Linux architectures, the Homebrew cask, the
// Scoop manifest and server.json at the snapshot's version; this
// machine's binary says the version and the commit it was built from.
func TestReleaseArchives(t *testing.T) {
	dir, version := releaseDist(t)
	sums := checksums(t, dir)
	for name, want := range sums {
		if got := sha256File(t, filepath.Join(dir, name)); got != want {
			t.Errorf("%s: SHA-256 %s, checksums.txt says %s", name, got, want)
		}
	}
	for _, goos := range []string{"linux", "darwin", "windows", "freebsd"} {
		for _, goarch := range []string{"amd64", "arm64"} {
			archive, exe := fmt.Sprintf("lspkit_%s_%s_%s.tar.gz", version, goos, goarch), "lspkit"
			list := []string{"tar", "-tzf"}
			if goos == "windows" {
				archive, exe, list = strings.TrimSuffix(archive, ".tar.gz")+".zip", "lspkit.exe", []string{"unzip", "-Z1"}
			}
			if _, ok := sums[archive]; !ok {
				t.Errorf("%s: not in checksums.txt", archive)
				continue
			}
			out, err := exec.Command(list[0], append(list[1:], filepath.Join(dir, archive))...).Output()
			if err != nil {
				t.Errorf("%s: %v", archive, err)
				continue
			}
			if files := strings.Fields(string(out)); !containsAll(files, exe, "README.md") {
				t.Errorf("%s holds %v, want %s and README.md", archive, files, exe)
			}
		}
	}
	for _, name := range []string{"_linux_amd64.deb", "_linux_arm64.deb", "_linux_amd64.rpm", "_linux_arm64.rpm"} {
		if _, ok := sums["lspkit_"+version+name]; !ok {
			t.Errorf("lspkit_%s%s: not in checksums.txt", version, name)
		}
	}
	for _, name := range []string{"homebrew/Casks/lspkit.rb", "scoop/lspkit.json", "server.json"} {
		if data, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !strings.Contains(string(data), version) {
			t.Errorf("%s: %v, want the version %s in it", name, err, version)
		}
	}
	// The Homebrew cask README's line installs (lspkit/tap is the
	// lspkit/homebrew-tap repository) and the Scoop manifest: every
	// archive they name has the SHA-256 checksums.txt gives it, and the
	// cask lifts macOS's quarantine from the binary, which is not
	// notarized.
	if line := installLine(t, "Homebrew"); line != "brew install --cask lspkit/tap/lspkit" {
		t.Errorf("README's Homebrew line is %q", line)
	}
	cask, _ := os.ReadFile(filepath.Join(dir, "homebrew", "Casks", "lspkit.rb"))
	pairs := regexp.MustCompile(`url "[^"]*/lspkit_#\{version\}(_[a-z0-9_]+\.tar\.gz)"\s+sha256 "([0-9a-f]{64})"`).FindAllStringSubmatch(string(cask), -1)
	if len(pairs) != 4 || !strings.Contains(string(cask), `"com.apple.quarantine", "#{staged_path}/lspkit"`) {
		t.Errorf("the cask names %d archives (want darwin and linux on amd64 and arm64) or does not lift the quarantine:\n%s", len(pairs), cask)
	}
	var scoop struct {
		Architecture map[string]struct {
			URL  string `json:"url"`
			Hash string `json:"hash"`
		} `json:"architecture"`
	}
	readJSON(t, filepath.Join(dir, "scoop", "lspkit.json"), &scoop)
	for _, a := range scoop.Architecture {
		pairs = append(pairs, []string{"", strings.TrimPrefix(path.Base(a.URL), "lspkit_"+version), a.Hash})
	}
	if len(pairs) != 6 {
		t.Errorf("the Scoop manifest names %d archives, want windows on amd64 and arm64", len(scoop.Architecture))
	}
	for _, p := range pairs {
		if name := "lspkit_" + version + p[1]; sums[name] != p[2] {
			t.Errorf("%s: the cask or Scoop manifest says SHA-256 %s, checksums.txt %s", name, p[2], sums[name])
		}
	}

	if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
		out, err := exec.Command(filepath.Join(dir, "lspkit_linux_amd64_v1", "lspkit"), "--version").Output()
		head, _ := exec.Command("git", "rev-parse", "HEAD").Output()
		if err != nil || !strings.HasPrefix(string(out), "lspkit "+version+" (commit ") || !strings.Contains(string(out), strings.TrimSpace(string(head))) {
			t.Errorf("lspkit --version: %q %v, want version %s and commit %s", out, err, version, head)
		}
	}
}

func containsAll(list []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, l := range list {
			found = found || l == w
		}
		if !found {
			return false
		}
	}
	return true
}

// TestReleaseInstallScript: install.sh, against the snapshot served on
// 127.0.0.1, installs this machine's binary into the directory given
// (no sudo) after checking its SHA-256, and the binary runs; served an
// archive whose bytes differ from checksums.txt's, it refuses, saying so,
// and installs nothing.
func TestReleaseInstallScript(t *testing.T) {
	dir, version := releaseDist(t)
	archive := fmt.Sprintf("lspkit_%s_%s_%s.tar.gz", version, runtime.GOOS, runtime.GOARCH)
	// README's line, with the release's address replaced by the server's
	// (and given to the script, whose default is the release's).
	const release = "https://github.com/lspkit/lspkit/releases/latest/download"
	line := installLine(t, "script")
	if !strings.HasPrefix(line, "curl -fsSL "+release+"/install.sh | sh") {
		t.Fatalf("README's script line is %q, want curl of %s/install.sh piped to sh", line, release)
	}
	run := func(base string) (string, string, error) {
		home := t.TempDir()
		bin := filepath.Join(home, "bin")
		cmd := exec.Command("sh", "-c", strings.ReplaceAll(line, release, base))
		cmd.Env = append(os.Environ(), "HOME="+home, "LSPKIT_BASE_URL="+base, "LSPKIT_INSTALL_DIR="+bin)
		out, err := cmd.CombinedOutput()
		return string(out), bin, err
	}
	files := http.FileServer(http.Dir(dir))
	serve := func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/install.sh" { // a release asset beside the archives
			http.ServeFile(w, r, filepath.Join(repo, "install.sh"))
			return
		}
		files.ServeHTTP(w, r)
	}

	good := httptest.NewServer(http.HandlerFunc(serve))
	defer good.Close()
	out, bin, err := run(good.URL)
	if err != nil || !strings.Contains(out, "installed lspkit "+version) {
		t.Fatalf("install.sh: %v\n%s", err, out)
	}
	if v, err := exec.Command(filepath.Join(bin, "lspkit"), "--version").Output(); err != nil || !strings.HasPrefix(string(v), "lspkit "+version) {
		t.Fatalf("the installed lspkit: %q %v", v, err)
	}

	data, err := os.ReadFile(filepath.Join(dir, archive))
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	corrupt := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/"+archive) {
			w.Write(data)
			return
		}
		serve(w, r)
	}))
	defer corrupt.Close()
	out, bin, err = run(corrupt.URL)
	if err == nil || !strings.Contains(out, "SHA-256") || !strings.Contains(out, "nothing installed") {
		t.Fatalf("install.sh with a corrupted archive: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(bin, "lspkit")); !os.IsNotExist(err) {
		t.Fatalf("a corrupted archive left %s: %v", filepath.Join(bin, "lspkit"), err)
	}
}

// TestReleaseDeb: the .deb, installed with dpkg -i (as root, on a Debian
// system), puts a working lspkit on PATH — its version, and the main job
// against the example: the type error found, exit 1 — and dpkg -r takes
// it away again.
func TestReleaseDeb(t *testing.T) {
	dir, version := releaseDist(t)
	if _, err := exec.LookPath("dpkg"); err != nil || os.Geteuid() != 0 || runtime.GOARCH != "amd64" {
		t.Skip("dpkg -i needs a Debian system on amd64, as root")
	}
	if _, err := os.Stat("/usr/bin/lspkit"); err == nil {
		t.Skip("/usr/bin/lspkit exists already: not replaced by a test")
	}
	serversEnv(t)
	// README's line, run as root (no sudo needed) on the snapshot's file.
	line := strings.Fields(installLine(t, "Debian"))
	if want := []string{"sudo", "dpkg", "-i", "lspkit_VERSION_linux_amd64.deb"}; !slices.Equal(line, want) {
		t.Fatalf("README's Debian line is %q, want %q", line, want)
	}
	cmd := exec.Command(line[1], line[2], strings.Replace(line[3], "VERSION", version, 1))
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("dpkg -i: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("dpkg", "-r", "lspkit").CombinedOutput(); err != nil {
			t.Errorf("dpkg -r: %v\n%s", err, out)
		}
		if _, err := os.Stat("/usr/bin/lspkit"); !os.IsNotExist(err) {
			t.Errorf("/usr/bin/lspkit after dpkg -r: %v", err)
		}
	})
	path, err := exec.LookPath("lspkit")
	if err != nil || path != "/usr/bin/lspkit" {
		t.Fatalf("lspkit on PATH: %q %v", path, err)
	}
	if out, err := exec.Command("lspkit", "--version").Output(); err != nil || !strings.HasPrefix(string(out), "lspkit "+version) {
		t.Fatalf("lspkit --version: %q %v", out, err)
	}
	example, _ := filepath.Abs(filepath.Join("..", "..", "examples", "go-broken"))
	out, err := exec.Command("lspkit", "check", "--root", example, filepath.Join(example, "main.go")).CombinedOutput()
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 1 || !strings.Contains(string(out), "main.go:") {
		t.Fatalf("lspkit check of the example: %v\n%s", err, out)
	}
}

// TestReleaseNPM: lspkit's npm packages from the snapshot, published to a
// registry on 127.0.0.1 (Verdaccio, LSPKIT_VERDACCIO: its command, as
// scripts/test-release.sh installs it; no uplink, so nothing comes from
// anywhere else), run with npx in an empty HOME whose PATH holds node,
// npm, npx and sh alone — no Go. README's npx line, as written: lspkit
// --version names the snapshot's version, cold (an empty npm cache) and
// warm; doctor names Go as what gopls needs for the example; lspkit mcp
// answers MCP's initialize and an lsp_status call. It reports the times,
// and what the resolver costs: the package's bin against the binary.
func TestReleaseNPM(t *testing.T) {
	dir, version := releaseDist(t)
	verdaccio := os.Getenv("LSPKIT_VERDACCIO")
	if verdaccio == "" {
		t.Skip("LSPKIT_VERDACCIO (the registry's command) not set: scripts/test-release.sh runs this test")
	}
	tmp := t.TempDir()
	reg := startRegistry(t, verdaccio, tmp)

	// The user's side: node, npm and npx on PATH, and the shell npx runs
	// a package's bin with; nothing else.
	bin, home := filepath.Join(tmp, "bin"), filepath.Join(tmp, "home")
	for _, d := range []string{bin, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"node", "npm", "npx", "sh"} {
		path, err := exec.LookPath(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(path, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	npmrc := filepath.Join(tmp, "npmrc")
	host := strings.TrimPrefix(reg.url, "http:")
	if err := os.WriteFile(npmrc, []byte("registry="+reg.url+"/\n"+host+"/:_authToken="+reg.token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "PATH=" + bin, "NPM_CONFIG_USERCONFIG=" + npmrc, "npm_config_cache=" + filepath.Join(tmp, "npm-cache"),
		"npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false"}
	if _, err := exec.LookPath("go"); err == nil {
		cmd := exec.Command("sh", "-c", "command -v go")
		cmd.Env = env
		if out, err := cmd.Output(); err == nil {
			t.Fatalf("go is on the user's PATH: %s", out)
		}
	}
	run := func(name string, args ...string) (string, time.Duration, error) {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.Env, cmd.Dir = env, home
		start := time.Now()
		out, err := cmd.CombinedOutput()
		return string(out), time.Since(start), err
	}

	tarballs, err := filepath.Glob(filepath.Join(dir, "npm", "*.tgz"))
	if err != nil || len(tarballs) != 9 {
		t.Fatalf("dist/npm: %v %v, want 8 platform packages and lspkit", tarballs, err)
	}
	// The platforms' packages first: lspkit names them.
	lspkitTgz := filepath.Join(dir, "npm", "lspkit-"+version+".tgz")
	tarballs = append(slices.DeleteFunc(tarballs, func(p string) bool { return p == lspkitTgz }), lspkitTgz)
	for _, tgz := range tarballs {
		if out, _, err := run("npm", "publish", "--tag", "snapshot", tgz); err != nil {
			t.Fatalf("npm publish %s: %v\n%s", filepath.Base(tgz), err, out)
		}
	}

	// A release is the latest: README's npx line, as written, runs it.
	if out, _, err := run("npm", "dist-tag", "add", "lspkit@"+version, "latest"); err != nil {
		t.Fatalf("npm dist-tag add lspkit@%s latest: %v\n%s", version, err, out)
	}
	npx := strings.Fields(installLine(t, "npm"))
	if len(npx) != 4 || npx[0] != "npx" || npx[2] != "lspkit" || npx[3] != "mcp" {
		t.Fatalf("README's npm line is %q, want npx, its flag, lspkit and mcp", npx)
	}
	out, cold, err := run("npx", slices.Concat(npx[1:3], []string{"--version"})...)
	if err != nil || !strings.HasPrefix(out, "lspkit "+version) {
		t.Fatalf("%s --version, cold: %v\n%s", strings.Join(npx[:3], " "), err, out)
	}
	out, warm, err := run("npx", slices.Concat(npx[1:3], []string{"--version"})...)
	if err != nil || !strings.HasPrefix(out, "lspkit "+version) {
		t.Fatalf("%s --version, warm: %v\n%s", strings.Join(npx[:3], " "), err, out)
	}
	t.Logf("%s --version: %d ms cold (empty npm cache, local registry), %d ms warm", strings.Join(npx[:3], " "), cold.Milliseconds(), warm.Milliseconds())

	// What the resolver costs: its package's bin (node, then the binary)
	// against the binary itself, as npx left them in its cache.
	resolver, _ := filepath.Glob(filepath.Join(tmp, "npm-cache", "_npx", "*", "node_modules", "lspkit", "bin", "lspkit.js"))
	platform, _ := filepath.Glob(filepath.Join(tmp, "npm-cache", "_npx", "*", "node_modules", "@lspkit", "*", "bin", "lspkit"))
	if len(resolver) != 1 || len(platform) != 1 {
		t.Fatalf("npx's cache holds resolvers %v and binaries %v, want one of each", resolver, platform)
	}
	empty := filepath.Join(tmp, "empty.js")
	writeFiles(t, tmp, map[string]string{"empty.js": ""})
	viaNode, direct, bare := medianRun(t, env, "node", resolver[0], "--version"), medianRun(t, env, platform[0], "--version"), medianRun(t, env, "node", empty)
	t.Logf("lspkit --version: %.1f ms through the resolver (node bin/lspkit.js), %.1f ms the binary alone: the resolver costs %.1f ms, of which node's own start (an empty script) %.1f ms (medians of 9)",
		ms(viaNode), ms(direct), ms(viaNode-direct), ms(bare))

	// Without Go, doctor says that gopls needs it, for the example's files.
	example, _ := filepath.Abs(filepath.Join("..", "..", "examples", "go-broken"))
	out, _, err = run("npx", slices.Concat(npx[1:3], []string{"doctor", "--root", example})...)
	if !regexp.MustCompile(`(?m)^! go +not found +needed by gopls, which this root's files use$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^! \* gopls .*install go first, then lspkit install gopls$`).MatchString(out) {
		t.Errorf("%s doctor, without Go: %v, want go named as what gopls needs\n%s", strings.Join(npx[:3], " "), err, out)
	}
	for _, argv := range [][]string{{platform[0]}, {filepath.Join(bin, "node"), resolver[0]}} {
		t.Logf("%s mcp: initialize answered %.1f ms after the spawn (median of 9)", filepath.Base(argv[len(argv)-1]), ms(medianInitialize(t, env, example, argv)))
	}
	mcp := exec.Command(filepath.Join(bin, "npx"), slices.Concat(npx[1:], []string{"--root", example})...)
	mcp.Env, mcp.Dir = env, example
	stdin, _ := mcp.StdinPipe()
	stdout, _ := mcp.StdoutPipe()
	start := time.Now()
	if err := mcp.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		if err := mcp.Wait(); err != nil {
			t.Errorf("%s after its input closed: %v", strings.Join(npx, " "), err)
		}
	}()
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	ask := func(id int, method, params string) string {
		t.Helper()
		fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
		for lines.Scan() {
			if strings.Contains(lines.Text(), fmt.Sprintf(`"id":%d`, id)) {
				return lines.Text()
			}
		}
		t.Fatalf("%s ended before answering %s: %v", strings.Join(npx, " "), method, lines.Err())
		return ""
	}
	if init := ask(1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"release-test","version":"0"}}`); !strings.Contains(init, `"serverInfo"`) {
		t.Fatalf("initialize: %s", init)
	}
	t.Logf("%s: initialize answered %d ms after the spawn (warm npm cache; npx asks the registry for the latest version each time)", strings.Join(npx, " "), time.Since(start).Milliseconds())
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if status := ask(2, "tools/call", `{"name":"lsp_status","arguments":{}}`); !strings.Contains(status, `"result"`) || strings.Contains(status, `"isError":true`) || !strings.Contains(status, "gopls") {
		t.Fatalf("lsp_status: %s", status)
	}
}

// npmRegistry is a Verdaccio on 127.0.0.1: its URL and a publisher's token.
type npmRegistry struct{ url, token string }

// startRegistry starts Verdaccio (command verdaccio) with its storage
// under dir, allowing anyone to read and a user it creates to publish, and
// stops it when the test ends.
func startRegistry(t *testing.T, verdaccio, dir string) npmRegistry {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	config := filepath.Join(dir, "verdaccio.yaml")
	if err := os.WriteFile(config, []byte(`storage: ./storage
auth:
  htpasswd:
    file: ./htpasswd
    max_users: 1
packages:
  '**':
    access: $all
    publish: $authenticated
log: { type: stdout, format: pretty, level: warn }
`), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(verdaccio, "--config", config, "--listen", addr)
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	// Verdaccio says where it listens once it does.
	for s := bufio.NewScanner(out); ; {
		if !s.Scan() {
			t.Fatalf("verdaccio ended before listening: %v", s.Err())
		}
		if strings.Contains(s.Text(), "http address") {
			go io.Copy(io.Discard, out)
			break
		}
	}
	url := "http://" + addr
	req, _ := http.NewRequest(http.MethodPut, url+"/-/user/org.couchdb.user:lspkit", strings.NewReader(`{"name":"lspkit","password":"release-test"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var user struct {
		Token string `json:"token"`
	}
	if err := json.UnmarshalRead(resp.Body, &user); err != nil || user.Token == "" {
		t.Fatalf("a publisher on the registry: %s %v", resp.Status, err)
	}
	return npmRegistry{url: url, token: user.Token}
}

// installLine is the command README's "Install" table gives for the row
// whose first cell starts with how, unquoted from its backticks.
func installLine(t *testing.T, how string) string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(readme), "\n## Install\n")
	table, _, _ = strings.Cut(table, "\n## ")
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(strings.ReplaceAll(line, `\|`, "\x00"), "|")
		if len(cells) == 4 && strings.HasPrefix(strings.TrimSpace(cells[1]), how) {
			return strings.ReplaceAll(strings.Trim(strings.TrimSpace(cells[2]), "`"), "\x00", "|")
		}
	}
	t.Fatalf("README's Install table has no row for %q", how)
	return ""
}

// medianRun runs argv with env 9 times and returns the median wall time.
func medianRun(t *testing.T, env []string, argv ...string) time.Duration {
	t.Helper()
	var times []time.Duration
	for range 9 {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = env
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	return times[len(times)/2]
}

// medianInitialize starts argv mcp --root root 9 times and returns the
// median time from the spawn to MCP's initialize answer.
func medianInitialize(t *testing.T, env []string, root string, argv []string) time.Duration {
	t.Helper()
	var times []time.Duration
	for range 9 {
		cmd := exec.Command(argv[0], append(argv[1:], "mcp", "--root", root)...)
		cmd.Env, cmd.Dir = env, root
		cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"release-test","version":"0"}}}` + "\n")
		stdout, _ := cmd.StdoutPipe()
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(stdout).ReadString('\n')
		took := time.Since(start)
		io.Copy(io.Discard, stdout)
		if werr := cmd.Wait(); err != nil || werr != nil || !strings.Contains(line, `"serverInfo"`) {
			t.Fatalf("%s mcp: %q %v %v", strings.Join(argv, " "), line, err, werr)
		}
		times = append(times, took)
	}
	slices.Sort(times)
	return times[len(times)/2]
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// TestReleaseGoInstall: README's go install line, as written, against a
// module proxy on this machine that serves the commit as the snapshot's
// version (lspkit's module is not on the public proxy before its first
// tag): the module zip is the commit's tree without the directories that
// are modules of their own, the other modules come from this machine's
// module cache (itself a proxy; the Go proxy after it answers for the
// checksum database), and the module cache is a new one. The
// lspkit it installs names that version (debug.BuildInfo's).
func TestReleaseGoInstall(t *testing.T) {
	_, version := releaseDist(t)
	line := strings.Fields(installLine(t, "Go"))
	if want := []string{"go", "install", "github.com/lspkit/lspkit/cmd/lspkit@latest"}; !slices.Equal(line, want) {
		t.Fatalf("README's Go line is %q, want %q", line, want)
	}
	const module = "github.com/lspkit/lspkit"
	tmp := t.TempDir()
	at := filepath.Join(tmp, "proxy", module, "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	v := "v" + version
	archive := []string{"archive", "--format=zip", "--prefix=" + module + "@" + v + "/", "-o", filepath.Join(at, v+".zip"), "HEAD", "--", "."}
	for _, mod := range strings.Fields(git("ls-files", "*go.mod")) {
		if dir := path.Dir(mod); dir != "." {
			archive = append(archive, ":(exclude)"+dir)
		}
	}
	git(archive...)
	commitTime := strings.TrimSpace(git("log", "-1", "--format=%cI"))
	writeFiles(t, at, map[string]string{
		"list":      v + "\n",
		v + ".info": fmt.Sprintf(`{"Version":%q,"Time":%q}`, v, commitTime),
		v + ".mod":  git("show", "HEAD:go.mod"),
	})
	goEnv := func(name string) string {
		out, _ := exec.Command("go", "env", name).Output()
		return strings.TrimSpace(string(out))
	}
	gobin := filepath.Join(tmp, "bin")
	cmd := exec.Command(line[0], line[1:]...)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOBIN="+gobin, "GOMODCACHE="+filepath.Join(tmp, "modcache"), "GOFLAGS=-modcacherw",
		"GOPROXY=file://"+filepath.Join(tmp, "proxy")+",file://"+filepath.Join(goEnv("GOMODCACHE"), "cache", "download")+",https://proxy.golang.org",
		"GONOSUMDB="+module, "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(line, " "), err, out)
	}
	out, err := exec.Command(filepath.Join(gobin, "lspkit"), "--version").Output()
	if f := strings.Fields(string(out)); err != nil || len(f) < 2 || f[0] != "lspkit" || f[1] != version {
		t.Fatalf("the lspkit go install built says %q (%v), want version %s", out, err, version)
	}
	t.Logf("%s: %s", strings.Join(line, " "), strings.TrimSpace(string(out)))
}
