#!/bin/sh
# install.sh: installs lspkit from a release, without sudo: the archive
# for this machine, its SHA-256 checked against the release's
# checksums.txt (a mismatch installs nothing), the binary put in
# ~/.local/bin; then it says how to wire lspkit into an agent host.
#
#   curl -fsSL https://github.com/lspkit/lspkit/releases/latest/download/install.sh | sh
#
# LSPKIT_VERSION: the release (default: the latest); LSPKIT_INSTALL_DIR:
# where the binary goes (default: ~/.local/bin); LSPKIT_BASE_URL: where
# the release's files are (default: its GitHub release).
set -eu

fail() {
	echo "install.sh: $*" >&2
	exit 1
}

case "$(uname -s)" in
Linux) os=linux ;;
Darwin) os=darwin ;;
FreeBSD) os=freebsd ;;
*) fail "no lspkit release for $(uname -s): on Windows run install.ps1; elsewhere: go install github.com/lspkit/lspkit/cmd/lspkit@latest" ;;
esac
case "$(uname -m)" in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) fail "no lspkit release for $(uname -m); build it: go install github.com/lspkit/lspkit/cmd/lspkit@latest" ;;
esac

if [ -n "${LSPKIT_BASE_URL:-}" ]; then
	base=$LSPKIT_BASE_URL
elif [ -n "${LSPKIT_VERSION:-}" ]; then
	base="https://github.com/lspkit/lspkit/releases/download/v${LSPKIT_VERSION#v}"
else
	base="https://github.com/lspkit/lspkit/releases/latest/download"
fi
dir=${LSPKIT_INSTALL_DIR:-$HOME/.local/bin}

if command -v curl >/dev/null 2>&1; then
	fetch() { curl -fsSL --retry 2 -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
	fetch() { wget -q -O "$2" "$1"; }
else
	fail "neither curl nor wget is installed"
fi
if command -v sha256sum >/dev/null 2>&1; then
	sha256() { sha256sum "$1" | cut -d' ' -f1; }
elif command -v shasum >/dev/null 2>&1; then
	sha256() { shasum -a 256 "$1" | cut -d' ' -f1; }
elif command -v sha256 >/dev/null 2>&1; then
	sha256() { sha256 -q "$1"; }
else
	fail "no SHA-256 tool (sha256sum, shasum or sha256) to check the download with"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fetch "$base/checksums.txt" "$tmp/checksums.txt" || fail "cannot download $base/checksums.txt"
line=$(grep "_${os}_${arch}\.tar\.gz\$" "$tmp/checksums.txt" | head -n 1) || true
[ -n "$line" ] || fail "the release at $base has no archive for ${os}/${arch}"
want=${line%% *}
archive=${line##* }
fetch "$base/$archive" "$tmp/$archive" || fail "cannot download $base/$archive"
got=$(sha256 "$tmp/$archive")
[ "$got" = "$want" ] || fail "$archive's SHA-256 is $got, not $want as checksums.txt says: nothing installed"

mkdir -p "$tmp/x" "$dir"
tar -xzf "$tmp/$archive" -C "$tmp/x" lspkit || fail "$archive holds no lspkit binary"
cp "$tmp/x/lspkit" "$dir/.lspkit.new"
chmod 755 "$dir/.lspkit.new"
mv -f "$dir/.lspkit.new" "$dir/lspkit"

echo "installed $("$dir/lspkit" --version) as $dir/lspkit"
case ":$PATH:" in
*":$dir:"*) ;;
*) echo "note: $dir is not on your PATH; add it (export PATH=\"$dir:\$PATH\") before the hosts can start lspkit" ;;
esac
echo "next, in your project: lspkit init --host claude-code (or codex, gemini, opencode, cursor), then lspkit doctor"
