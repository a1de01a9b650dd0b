# Sourced by the scripts that run a Go test against node programs pinned by
# a package.json and lockfile under testdata (LLxprt Code's client, the
# agent hosts): node_modules installs them once per lockfile into the user
# cache and prints its node_modules; go_test runs one test of cmd/lspkit
# without the race detector, prints its verdict lines, and fails unless it
# passed.

# node_modules DIR NAME [ci|install]: DIR's packages in the cache.
node_modules() {
	local src=$1 name=$2 how=${3:-ci}
	local lock=$src/package-lock.json
	local dir=${XDG_CACHE_HOME:-$HOME/.cache}/lspkit/tools/$name-$(sha256sum "$lock" | cut -c1-12)
	if [ ! -f "$dir/installed" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		cp "$src/package.json" "$lock" "$dir/"
		(cd "$dir" && npm "$how" --no-audit --no-fund --silent && touch installed) >&2 || return 1
	fi
	echo "$dir/node_modules"
}

# go_test NAME: cmd/lspkit's test NAME, once, without the race detector.
go_test() {
	local name=$1 out status=0
	out=$(mktemp)
	LSPKIT_CI_LIVE=1 go test -vet=off -count=1 -timeout 30m -run "^$name\$" -v ./cmd/lspkit >"$out" 2>&1 || status=$?
	grep -E '^(=== RUN|--- |    |ok|FAIL|PASS)' "$out" | grep -v '^=== RUN' || true
	if [ "$status" -ne 0 ] || ! grep -q "^--- PASS: $name" "$out"; then
		cat "$out" >&2
		rm -f "$out"
		echo "$name did not pass" >&2
		return 1
	fi
	rm -f "$out"
}
