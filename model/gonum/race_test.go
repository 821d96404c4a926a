//go:build race

package gonum

// raceEnabled is true under the race detector, where the slowest tests check less.
const raceEnabled = true
