//go:build !unix

package protocol_test

func processExists(pid int) bool { return false }
