#!/usr/bin/env bash
# The repository carries no build output: every committed file is under
# 1 MiB, and every committed executable is a script (it begins with #!).
# .ci/run runs it; it prints each file that breaks a rule and exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
while IFS= read -r -d '' entry; do
	mode=${entry%% *}
	file=${entry#*$'\t'}
	[ -f "$file" ] || continue # deleted in the work tree
	size=$(wc -c <"$file")
	if [ "$size" -gt 1048576 ]; then
		echo "$file: $size bytes, over 1 MiB (build output? add it to .gitignore and git rm --cached it)" >&2
		status=1
	fi
	if [ "$mode" = 100755 ] && [ "$(head -c 2 "$file")" != "#!" ]; then
		echo "$file: an executable that is not a script (build output? add it to .gitignore and git rm --cached it)" >&2
		status=1
	fi
done < <(git ls-files -s -z | tr '\0' '\n' | sed 's/^\([0-9]*\) [0-9a-f]* [0-9]*\t/\1 \t/' | tr '\n' '\0')
if [ "$status" -eq 0 ]; then
	echo "the tree holds no file over 1 MiB and no executable but scripts"
fi
exit $status
