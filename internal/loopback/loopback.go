// Package loopback decides whether a host or a listen address is loopback-only: the one rule that
// the web server's bind and Host checks and the cluster's listen checks share.
package loopback

import (
	"net"
	"strings"
)

// Host reports whether host names loopback: "localhost" or an IP in 127.0.0.0/8 or ::1. A port
// (host:port) and IPv6 brackets are allowed and ignored. An empty host (all interfaces) is not
// loopback.
func Host(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Addr reports whether a listen address host:port listens on loopback only. An address without a
// port, or with an empty host (all interfaces), is not.
func Addr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	return Host(host)
}
