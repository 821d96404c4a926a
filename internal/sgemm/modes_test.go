package sgemm

import "testing"

// testModes lists the paths the kernel tests run: every kernel this CPU has and, where it has AVX2
// but not AVX-512, the 32-column driver through the Go stand-ins.
func testModes() []string {
	modes := Available()
	if hasAVX2FMA && !hasAVX512 {
		modes = append([]string{KernelAVX512Go}, modes...)
	}
	return modes
}

// useMode switches to a test mode and restores the previous kernel when the test ends.
func useMode(t *testing.T, mode string) {
	t.Helper()
	prev := Kernel()
	t.Cleanup(func() {
		if err := Use(prev); err != nil {
			t.Error(err)
		}
	})
	if err := Use(mode); err != nil {
		t.Fatal(err)
	}
}
