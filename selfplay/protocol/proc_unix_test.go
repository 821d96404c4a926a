//go:build unix

package protocol_test

import "syscall"

// processExists reports whether a process (or an unreaped zombie) with this pid exists.
func processExists(pid int) bool { return syscall.Kill(pid, 0) == nil }
