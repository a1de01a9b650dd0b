package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json"
)

// A fetched project is too large to keep in testdata: it is taken from a
// registry at a pinned version — the Go module proxy, npm or Debian's
// archive, the registries lspkit's own installs use — once, into the user
// cache, and copied from there for each run.
type fetched struct {
	// registry is "go" (a module: name is its path), "npm" (a package) or
	// "deb" (a Debian package, name=version as apt-get takes it).
	registry, name, version string
	// sub is the part of the module or package copied, '/'-separated ("" is
	// all of it).
	sub string
	// skip leaves out files and directories of sub (relative to sub,
	// '/'-separated).
	skip func(rel string, dir bool) bool
	// add writes files of ours beside the copy (relative path → text), so
	// that each compiler and server can build it on its own.
	add map[string]string
	// more are further Debian packages (name=version) unpacked beside the
	// first: a library's documentation package, with its examples.
	more []string
	// layout, when set, copies these parts of the unpacked tree (from →
	// to, '/'-separated) instead of sub.
	layout map[string]string
}

// dir returns the directory holding the project's files, fetching them
// the first time.
func (f *fetched) dir() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dst := filepath.Join(cache, "lspkit-accuracy", f.registry, strings.NewReplacer("/", "_", "=", "@").Replace(f.name)+"@"+f.version)
	if _, err := os.Stat(dst); err == nil {
		return dst, nil
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dst), ".fetch-")
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(dst), 0o755); err == nil {
			tmp, err = os.MkdirTemp(filepath.Dir(dst), ".fetch-")
		}
	}
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "src")
	switch f.registry {
	case "go":
		src, err = f.fetchGo()
	case "npm":
		err = f.fetchNPM(tmp, src)
	case "deb":
		err = f.fetchDeb(tmp, src)
	default:
		err = fmt.Errorf("unknown registry %q", f.registry)
	}
	if err != nil {
		return "", fmt.Errorf("fetch %s %s@%s: %w", f.registry, f.name, f.version, err)
	}
	out := filepath.Join(tmp, "out")
	if f.layout == nil {
		if err := f.copy(filepath.Join(src, filepath.FromSlash(f.sub)), out); err != nil {
			return "", err
		}
	}
	for from, to := range f.layout {
		if err := f.copy(filepath.Join(src, filepath.FromSlash(from)), filepath.Join(out, filepath.FromSlash(to))); err != nil {
			return "", err
		}
	}
	for rel, text := range f.add {
		p := filepath.Join(out, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	if err := os.Rename(out, dst); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	return dst, nil
}

// fetchGo returns the module's directory in the module cache, downloading
// it from the proxy.
func (f *fetched) fetchGo() (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", f.name+"@"+f.version)
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download: %w", err)
	}
	var mod struct{ Dir, Error string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		return "", fmt.Errorf("go mod download: %v %s", err, mod.Error)
	}
	return mod.Dir, nil
}

// fetchNPM unpacks the package's tarball from the npm registry into src.
func (f *fetched) fetchNPM(tmp, src string) error {
	cmd := exec.Command("npm", "pack", "--silent", "--pack-destination", tmp, f.name+"@"+f.version)
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("npm pack: %w", err)
	}
	tgz, err := os.ReadFile(filepath.Join(tmp, strings.TrimSpace(string(out))))
	if err != nil {
		return err
	}
	gz, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(h.Name)
		rel, ok := strings.CutPrefix(name, "package/")
		if h.Typeflag != tar.TypeReg || !ok || !fs.ValidPath(rel) {
			continue
		}
		p := filepath.Join(src, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
}

// fetchDeb downloads the Debian package (apt-get download) and unpacks
// it into src (dpkg-deb -x).
func (f *fetched) fetchDeb(tmp, src string) error {
	pkgs := append([]string{f.name + "=" + f.version}, f.more...)
	cmd := exec.Command("apt-get", append([]string{"download"}, pkgs...)...)
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("apt-get download: %w: %s", err, out)
	}
	debs, _ := filepath.Glob(filepath.Join(tmp, "*.deb"))
	if len(debs) != len(pkgs) {
		return fmt.Errorf("apt-get download left %d packages, not %d", len(debs), len(pkgs))
	}
	for _, deb := range debs {
		if out, err := exec.Command("dpkg-deb", "-x", deb, src).CombinedOutput(); err != nil {
			return fmt.Errorf("dpkg-deb -x: %w: %s", err, out)
		}
	}
	return nil
}

// copy copies the regular files under from (less skip) to to, writable.
func (f *fetched) copy(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel != "." && f.skip != nil && f.skip(rel, d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
}
