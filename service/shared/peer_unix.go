//go:build unix

package shared

import (
	"fmt"
	"net"
	"os"
)

// samePeer checks that the process at c's other end runs as this user.
func samePeer(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("not a Unix socket: %T", c)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var uid int
	var who string
	var credErr error
	if err := raw.Control(func(fd uintptr) { uid, who, credErr = peerUID(int(fd)) }); err != nil {
		return err
	}
	if credErr != nil {
		return fmt.Errorf("peer credentials: %w", credErr)
	}
	if uid != os.Getuid() {
		return fmt.Errorf("peer %sruns as uid %d, not %d", who, uid, os.Getuid())
	}
	return nil
}
