package main

import (
	"os"
	"strconv"
	"strings"
)

// watchLimit is the per-user inotify watch limit and the setting's name.
func watchLimit() (int, string) {
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches")
	if err != nil {
		return 0, ""
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, ""
	}
	return n, "fs.inotify.max_user_watches"
}
