//go:build !linux

package atomicfile

// replaceIf compares path with old just before the rename: no other
// system here swaps two names in one step.
func replaceIf(tmp, path string, old []byte) error { return replaceIfByCompare(tmp, path, old) }
