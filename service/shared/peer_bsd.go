//go:build darwin || freebsd

package shared

import (
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// samePeer checks that the process at c's other end runs as this user
// (LOCAL_PEERCRED, as getpeereid reads it).
func samePeer(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("not a Unix socket: %T", c)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var cred *unix.Xucred
	var credErr error
	if err := raw.Control(func(fd uintptr) { cred, credErr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED) }); err != nil {
		return err
	}
	if credErr != nil {
		return fmt.Errorf("peer credentials: %w", credErr)
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("peer runs as uid %d, not %d", cred.Uid, os.Getuid())
	}
	return nil
}
