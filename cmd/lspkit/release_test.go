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
	"path/filepath"
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
	run := func(base string) (string, string, error) {
		home := t.TempDir()
		bin := filepath.Join(home, "bin")
		cmd := exec.Command("sh", filepath.Join("..", "..", "install.sh"))
		cmd.Env = append(os.Environ(), "HOME="+home, "LSPKIT_BASE_URL="+base, "LSPKIT_INSTALL_DIR="+bin)
		out, err := cmd.CombinedOutput()
		return string(out), bin, err
	}

	good := httptest.NewServer(http.FileServer(http.Dir(dir)))
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
		http.FileServer(http.Dir(dir)).ServeHTTP(w, r)
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
	deb := filepath.Join(dir, fmt.Sprintf("lspkit_%s_linux_amd64.deb", version))
	if out, err := exec.Command("dpkg", "-i", deb).CombinedOutput(); err != nil {
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
// npm, npx and sh alone — no Go: npx lspkit --version names the snapshot's
// version, cold (an empty npm cache) and warm, and npx lspkit mcp answers
// MCP's initialize and an lsp_status call. It reports the times.
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

	pkg := "lspkit@" + version
	out, cold, err := run("npx", "--yes", pkg, "--version")
	if err != nil || !strings.HasPrefix(out, "lspkit "+version) {
		t.Fatalf("npx %s --version, cold: %v\n%s", pkg, err, out)
	}
	out, warm, err := run("npx", "--yes", pkg, "--version")
	if err != nil || !strings.HasPrefix(out, "lspkit "+version) {
		t.Fatalf("npx %s --version, warm: %v\n%s", pkg, err, out)
	}
	t.Logf("npx %s --version: %d ms cold (empty npm cache, local registry), %d ms warm", pkg, cold.Milliseconds(), warm.Milliseconds())

	example, _ := filepath.Abs(filepath.Join("..", "..", "examples", "go-broken"))
	mcp := exec.Command(filepath.Join(bin, "npx"), "--yes", pkg, "mcp", "--root", example)
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
			t.Errorf("npx lspkit mcp after its input closed: %v", err)
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
		t.Fatalf("npx lspkit mcp ended before answering %s: %v", method, lines.Err())
		return ""
	}
	if init := ask(1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"release-test","version":"0"}}`); !strings.Contains(init, `"serverInfo"`) {
		t.Fatalf("initialize: %s", init)
	}
	t.Logf("npx %s mcp: initialize answered %d ms after the spawn (warm npm cache)", pkg, time.Since(start).Milliseconds())
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
