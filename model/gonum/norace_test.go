//go:build !race

package gonum

const raceEnabled = false
