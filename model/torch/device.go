//go:build torch

package torch

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sugarme/gotch"
)

// ParseDevice turns "cpu", "cuda" (= "cuda:0") or "cuda:N" into a gotch device. A CUDA device must be
// present: the libtorch in use has CUDA support and the driver sees more than N devices.
func ParseDevice(s string) (gotch.Device, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch {
	case s == "" || s == "cpu":
		return gotch.CPU, nil
	case s == "cuda" || strings.HasPrefix(s, "cuda:"):
		idx := 0
		if s != "cuda" {
			n, err := strconv.Atoi(s[len("cuda:"):])
			if err != nil || n < 0 {
				return gotch.Device{}, fmt.Errorf("torch: device %q: want cpu, cuda or cuda:N", s)
			}
			idx = n
		}
		if !CUDAAvailable() {
			return gotch.Device{}, fmt.Errorf("torch: device %q: CUDA is not available (libtorch without CUDA, "+
				"no driver or no GPU; see docs/torch.md for the GPU build)", s)
		}
		if n := CUDADeviceCount(); idx >= n {
			return gotch.Device{}, fmt.Errorf("torch: device %q: only %d CUDA device(s)", s, n)
		}
		return gotch.CudaBuilder(uint(idx)), nil
	}
	return gotch.Device{}, fmt.Errorf("torch: device %q: want cpu, cuda or cuda:N", s)
}

// CUDAAvailable reports whether libtorch sees a usable CUDA device.
func CUDAAvailable() bool { return gotch.CUDA.IsAvailable() }

// CUDADeviceCount returns the number of CUDA devices libtorch sees (0 without CUDA).
func CUDADeviceCount() int {
	if !CUDAAvailable() {
		return 0
	}
	return int(gotch.CUDA.DeviceCount())
}

func deviceString(d gotch.Device) string {
	if d.IsCuda() {
		return fmt.Sprintf("cuda:%d", d.Value)
	}
	return "cpu"
}
