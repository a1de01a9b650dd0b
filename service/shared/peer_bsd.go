//go:build darwin || freebsd

package shared

import "golang.org/x/sys/unix"

// peerUID is the user of the socket fd's peer (LOCAL_PEERCRED, as
// getpeereid reads it).
func peerUID(fd int) (int, string, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return 0, "", err
	}
	return int(cred.Uid), "", nil
}
