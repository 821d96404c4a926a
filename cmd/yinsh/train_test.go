package main

import (
	"runtime"
	"testing"

	"github.com/yinsh-zero/yinsh/train"
)

// threads: N runs the pure-Go backend (and the whole process) on N cores, what makes a seeded run
// reproducible for a given threads value; the setting is restored afterwards.
func TestTrainThreadsSetGOMAXPROCS(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	restore := setThreads(train.Config{Threads: before + 1, Backend: "gonum"})
	if got := runtime.GOMAXPROCS(0); got != before+1 {
		t.Errorf("threads %d: GOMAXPROCS %d", before+1, got)
	}
	restore()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("after the run: GOMAXPROCS %d, want %d back", got, before)
	}
	setThreads(train.Config{Threads: 0, Backend: "gonum"})()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("threads 0: GOMAXPROCS %d, want %d (all cores, unchanged)", got, before)
	}
}
