#!/bin/sh
# A Claude Code PostToolUse hook: after Edit or Write, check the file the
# tool wrote with lspkit and hand the findings back to Claude.
#
# Claude Code passes the tool call as JSON on stdin (tool_input.file_path)
# and shows a hook's stderr to Claude when it exits 2. lspkit check exits 1
# with findings (printed to stdout), 3 when the file could not be fully
# checked (the reason on stderr), 2 for a path it cannot check (outside the
# project, a directory, gone) and 0 when every server checked it and found
# nothing. Findings are handed back, and so is every "not checked" with
# its reason: silence always means clean.
input=$(cat)
file=$(printf '%s' "$input" | sed -n 's/.*"file_path"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p')
[ -n "$file" ] || exit 0
root=${CLAUDE_PROJECT_DIR:-$PWD}
out=$(lspkit check --root "$root" "$file" 2>&1)
case $? in
0) exit 0 ;;
1) printf 'LSP errors in %s, please fix:\n%s\n' "$file" "$out" >&2; exit 2 ;;
*) printf 'lspkit did not (fully) check %s:\n%s\n' "$file" "$out" >&2; exit 2 ;;
esac
