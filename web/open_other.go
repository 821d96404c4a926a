//go:build !unix

package web

// openNonBlock: no FIFOs to open here.
const openNonBlock = 0
