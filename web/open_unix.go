//go:build unix

package web

import "syscall"

// openNonBlock opens a FIFO without waiting for a writer (a regular file reads as usual).
const openNonBlock = syscall.O_NONBLOCK
