package client

import (
	"fmt"
	"os"
)

// guardSupported is false on Windows: each server's Job Object, killed
// when its last handle closes, does the guard's work.
const guardSupported = false

// GuardMain refuses on Windows, where no guard is needed (see
// processControl).
func GuardMain([]string) int {
	fmt.Fprintln(os.Stderr, "lspkit guard: not used on Windows: servers run in a Job Object killed with the daemon")
	return 2
}
