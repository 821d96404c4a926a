//go:build torch

package torch

// Direct calls into gotch's C layer (libtch/torch_api.cpp, linked into every binary that imports
// gotch) where v0.9.1 has no Go wrapper or a slow one, and glibc's heap statistics for the leak test.

/*
#include <stdint.h>
#include <malloc.h>
void at_set_num_threads(int n_threads);
int at_get_num_threads();
void at_copy_data(void *tensor, void *vs, size_t numel, size_t elt_size_in_bytes);
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/sugarme/gotch/ts"
)

// copyOut copies the first len(dst) values of a float32 tensor (any device, any layout) into dst
// with one memcpy. gotch's CopyData checks the destination by reflecting over every element first,
// which costs more than the copy.
func copyOut(t *ts.Tensor, dst []float32) error {
	if len(dst) == 0 {
		return nil
	}
	C.at_copy_data(t.Ctensor(), unsafe.Pointer(unsafe.SliceData(dst)), C.size_t(len(dst)), 4)
	if err := ts.TorchErr(); err != nil {
		return fmt.Errorf("torch: copy to Go: %w", err)
	}
	return nil
}

// SetThreads sets libtorch's intra-op thread count (at::set_num_threads) for the calling OS thread
// and as the default for threads that have not run libtorch code yet; n ≤ 0 leaves it unchanged.
// libtorch's OpenMP settings are per OS thread, so the backend calls this on the locked OS thread of
// every Predict and TrainStep; it does nothing when the count is already n (at::set_num_threads also
// clears oneDNN's primitive cache, which must not happen on every call).
func SetThreads(n int) {
	if n > 0 && int(C.at_get_num_threads()) != n {
		C.at_set_num_threads(C.int(n))
	}
}

// threads returns libtorch's intra-op thread count as seen from the calling OS thread.
func threads() int { return int(C.at_get_num_threads()) }

// mallocTrim returns the C heap's free memory to the OS (glibc malloc_trim, all arenas). libtorch
// frees through malloc; the leak test calls it so that RSS measures what is held, not what
// per-thread arenas keep cached.
func mallocTrim() { C.malloc_trim(0) }

// cHeapInUse returns the bytes the C heap has handed out and not had back (glibc mallinfo2: arena
// chunks in use plus mmapped chunks): libtorch's tensors, gotch's handles and scalars. Unlike RSS
// it does not move with what the allocator caches, so the leak test checks it to the byte.
func cHeapInUse() int64 {
	mi := C.mallinfo2()
	return int64(mi.uordblks) + int64(mi.hblkhd)
}
