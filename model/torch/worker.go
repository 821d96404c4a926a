//go:build torch

package torch

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/ts"
)

// libtorch keeps per-OS-thread state: grad mode, autocast, and above all its OpenMP thread team.
// Every OS thread that runs a parallel region gets a team of its own, whose workers spin for a
// while after each region; a goroutine that lands on a different OS thread on every call (as Go
// schedules it) therefore builds team after team, and idle teams spinning on the same cores slowed
// small-batch inference by 20× in measurements. So all libtorch work runs on a few long-lived
// goroutines locked to their OS threads: per device, one for inference (Predict, serialised —
// each call already uses every intra-op thread) and one for training (TrainStep, EvalLoss,
// checkpoints), so that inference never waits for a training step.

type role int

const (
	roleInfer role = iota
	roleTrain
)

type workerKey struct {
	device string
	role   role
}

// worker runs functions on one locked OS thread.
type worker struct {
	jobs chan func()
}

var (
	workersMu sync.Mutex
	workers   = map[workerKey]*worker{}
)

// workerFor returns the worker of a device and role, starting it on first use. Workers live as long
// as the process (a handful of threads at most).
func workerFor(dev gotch.Device, r role) *worker {
	key := workerKey{deviceString(dev), r}
	workersMu.Lock()
	defer workersMu.Unlock()
	w := workers[key]
	if w == nil {
		w = &worker{jobs: make(chan func())}
		go func() {
			runtime.LockOSThread() // never unlocked: the thread is this worker's for good
			for f := range w.jobs {
				f()
			}
		}()
		workers[key] = w
	}
	return w
}

// run calls f on the worker's thread with grad mode set to grad and the intra-op thread count set
// to threads (when > 0), and waits for it. A panic in f is returned as an error rather than killing
// the worker.
func (w *worker) run(grad bool, threads int, f func() error) (err error) {
	done := make(chan struct{})
	w.jobs <- func() {
		defer close(done)
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("torch: panic in libtorch call: %v", p)
			}
		}()
		SetThreads(threads)
		prev, gerr := ts.GradSetEnabled(grad)
		if gerr != nil {
			err = fmt.Errorf("torch: grad mode: %w", gerr)
			return
		}
		defer func() { _, _ = ts.GradSetEnabled(prev) }()
		err = f()
	}
	<-done
	return err
}
