#!/usr/bin/env bash
# Installs the pinned language servers that lspkit's live tests talk to, into
# one cache directory, idempotently: a group already installed at its pinned
# versions is skipped. Versions are those of ../../../shared/design/servers.md.
#
#   conformance/servers/install.sh        install (or check) everything
#   LSPKIT_SERVERS=DIR install.sh         install into DIR
#
# Everything lands under $LSPKIT_SERVERS (default
# ${XDG_CACHE_HOME:-~/.cache}/lspkit/servers); bin/ holds one link per server
# binary, so tests put that one directory on PATH. A server that cannot be
# installed or does not start makes the script fail with its name.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
dest=${LSPKIT_SERVERS:-${XDG_CACHE_HOME:-$HOME/.cache}/lspkit/servers}
bin="$dest/bin"
mkdir -p "$bin"

fail() {
	echo "install.sh: $*" >&2
	exit 1
}

# npm_group NAME PACKAGE@VERSION... installs the packages into their own
# prefix unless a marker says they are there at these versions.
npm_group() {
	local name=$1
	shift
	local prefix="$dest/npm/$name"
	local want="$*"
	if [ -f "$prefix/.installed" ] && [ "$(cat "$prefix/.installed")" = "$want" ]; then
		echo "  $name: $want (cached)"
		return
	fi
	command -v npm >/dev/null || fail "$name: npm is not installed"
	echo "  $name: npm install $want"
	rm -rf "$prefix"
	mkdir -p "$prefix"
	if ! npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "$@" >"$prefix.log" 2>&1; then
		cat "$prefix.log" >&2
		fail "$name: npm install $want failed"
	fi
	echo "$want" >"$prefix/.installed"
}

# link NAME TARGET makes bin/NAME point at TARGET, which must exist.
link() {
	[ -x "$2" ] || fail "$1: $2 is missing after install"
	ln -sf "$2" "$bin/$1"
}

echo "== language servers into $dest"

# gopls: built from the version pinned in go.mod (a go tool there).
gopls_version=$(cd "$root" && go list -m -f '{{.Version}}' golang.org/x/tools/gopls)
if [ -x "$bin/gopls" ] && [ "$(cat "$dest/gopls.version" 2>/dev/null)" = "$gopls_version" ]; then
	echo "  gopls: $gopls_version (cached)"
else
	echo "  gopls: go build $gopls_version"
	(cd "$root" && go build -o "$bin/gopls" golang.org/x/tools/gopls) || fail "gopls: build failed"
	echo "$gopls_version" >"$dest/gopls.version"
fi

npm_group typescript typescript-language-server@5.3.0 typescript@6.0.3
link typescript-language-server "$dest/npm/typescript/node_modules/.bin/typescript-language-server"

# TypeScript 7's native server (tsc --lsp --stdio) has no tsserver: its own prefix.
npm_group typescript7 typescript@7.0.2
link tsc7 "$dest/npm/typescript7/node_modules/.bin/tsc"

npm_group pyright pyright@1.1.414
link pyright-langserver "$dest/npm/pyright/node_modules/.bin/pyright-langserver"

npm_group bash bash-language-server@5.8.1
link bash-language-server "$dest/npm/bash/node_modules/.bin/bash-language-server"

npm_group yaml yaml-language-server@1.25.0
link yaml-language-server "$dest/npm/yaml/node_modules/.bin/yaml-language-server"

# The vscode json/css/html/eslint servers, and the eslint library eslint's server loads.
npm_group vscode vscode-langservers-extracted@4.10.0 eslint@9.39.5
for s in json css html eslint; do
	link "vscode-$s-language-server" "$dest/npm/vscode/node_modules/.bin/vscode-$s-language-server"
done

# clangd 19 and shellcheck (bash-language-server's diagnostics) from Debian.
if ! command -v clangd-19 >/dev/null || ! command -v shellcheck >/dev/null; then
	echo "  apt: clangd-19 shellcheck"
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	{ $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq clangd-19 shellcheck; } >"$dest/apt.log" 2>&1 ||
		{ cat "$dest/apt.log" >&2; fail "clangd-19/shellcheck: apt-get install failed"; }
else
	echo "  clangd-19, shellcheck: installed"
fi
link clangd "$(command -v clangd-19)"
link shellcheck "$(command -v shellcheck)"

# Every server must at least start and say its version.
echo "== versions"
check() {
	local name=$1
	shift
	local out
	out=$(timeout 60 "$@" 2>&1 | head -1) || fail "$name does not start: $out"
	[ -n "$out" ] || fail "$name printed no version"
	printf '  %-30s %s\n' "$name" "$out"
}
check gopls "$bin/gopls" version
check typescript-language-server "$bin/typescript-language-server" --version
check "tsc7 (TypeScript 7)" "$bin/tsc7" --version
check pyright "$dest/npm/pyright/node_modules/.bin/pyright" --version
check bash-language-server "$bin/bash-language-server" --version
check yaml-language-server node -e "console.log(require('$dest/npm/yaml/node_modules/yaml-language-server/package.json').version)"
check vscode-langservers-extracted node -e "console.log(require('$dest/npm/vscode/node_modules/vscode-langservers-extracted/package.json').version)"
check eslint "$dest/npm/vscode/node_modules/.bin/eslint" --version
check clangd "$bin/clangd" --version
check shellcheck sh -c "\"$bin/shellcheck\" --version | sed -n 2p"
echo "== servers ready in $bin"
