//go:build unix

package client

// resident is the resident memory of the server pid and its helpers.
func (c *processControl) resident(pid int) (uint64, bool) { return residentBytes(pid) }
