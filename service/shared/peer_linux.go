package shared

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// peerUID is the user of the socket fd's peer (SO_PEERCRED), and who it
// is for messages.
func peerUID(fd int) (int, string, error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return 0, "", err
	}
	return int(cred.Uid), fmt.Sprintf("pid %d ", cred.Pid), nil
}
