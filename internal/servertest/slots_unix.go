//go:build unix

package servertest

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// acquireSlot locks one of Slots() files in a per-user directory under
// the temporary directory (flock: released by the kernel if the test
// process dies) and returns its release. The slot is chosen by the
// test's name; where it is held, this waits for it.
func acquireSlot(name string) func() {
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("lspkit-live-slots-%d", os.Getuid()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return func() {}
	}
	n := Slots()
	h := fnv.New32a()
	h.Write([]byte(name))
	first := int(h.Sum32() % uint32(n))
	// A free slot is taken at once; else the name's own is awaited.
	for i := range n {
		f, err := os.OpenFile(filepath.Join(dir, fmt.Sprint((first+i)%n)), os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			return func() {}
		}
		how := unix.LOCK_EX | unix.LOCK_NB
		if i == n-1 {
			f.Close()
			f, err = os.OpenFile(filepath.Join(dir, fmt.Sprint(first)), os.O_CREATE|os.O_RDWR, 0o600)
			if err != nil {
				return func() {}
			}
			how = unix.LOCK_EX
		}
		if err := unix.Flock(int(f.Fd()), how); err == nil {
			return func() { f.Close() } // closing releases the lock
		}
		f.Close()
	}
	return func() {}
}
