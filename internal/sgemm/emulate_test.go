//go:build amd64 && linux

package sgemm

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// emulateEnv makes TestAVX512KernelsEmulated fail, rather than skip, when the emulator is missing
// (CI installs it: python3 -m pip install bochscpu-python).
const emulateEnv = "YINSH_EMULATE_AVX512"

// TestAVX512KernelsEmulated runs the AVX-512 micro-kernels' machine code, taken from this test
// binary, on an emulated x86-64 CPU with AVX-512 (BochsCPU, driven by testdata/emulate.py), and
// checks their results against a float64 reference: edge depths (0, 1, odd, past one pass), row
// strides that are not multiples of the vector width, unaligned operands, B rows at arbitrary
// offsets, and guard values around C that must stay untouched. Machines with AVX-512 run the same
// kernels natively in the other tests; this one lets machines without it check them too.
func TestAVX512KernelsEmulated(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err == nil {
		err = exec.Command(python, "-c", "import bochscpu").Run()
	}
	if err != nil {
		if os.Getenv(emulateEnv) == "1" {
			t.Fatalf("%s=1 but python3 with bochscpu-python is not usable: %v", emulateEnv, err)
		}
		t.Skipf("no emulator (python3 -m pip install bochscpu-python; %s=1 makes this a failure): %v", emulateEnv, err)
	}
	if testing.Short() && os.Getenv(emulateEnv) != "1" {
		t.Skip("short mode")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	t.Run("kernel6x32", func(t *testing.T) {
		var cases []emuCase
		for _, kc := range []int{0, 1, 2, 3, 8, 31, 2*maxKC/3 + 1} {
			for _, ldc := range []int{32, 37, 50} {
				cases = append(cases, packedCase(rng, kc, ldc))
			}
		}
		runEmulated(t, python, "kernel6x32", cases)
	})
	t.Run("kernelRows6x32", func(t *testing.T) {
		var cases []emuCase
		for _, kc := range []int{0, 1, 2, 9, 144} {
			for _, ldc := range []int{32, 45} {
				cases = append(cases, rowsCase32(rng, kc, ldc))
			}
		}
		runEmulated(t, python, "kernelRows6x32", cases)
	})
}

// arenaAddr and arenaSize place the emulated function's operands; codeAddr its code.
const (
	codeAddr  = 0x1000_0000
	arenaAddr = 0x4000_0000
	arenaSize = 1 << 20
	guard     = 8 // floats of guard values before and after C
)

// emuCase is one call: the arguments, the arena's contents, where C is, and its float64 reference.
type emuCase struct {
	name        string
	args        []uint64
	arena       []byte // written at arenaAddr before the call
	cOff, cLen  int    // C with its guards: byte offset in the arena, floats
	c0          []float32
	want, bound []float64 // the 6×32 tile, row-major
	ldc, kc     int
}

// written is how many floats from the start of C proper the kernel may write: 6 rows of 32.
func (c *emuCase) written() int { return 5*c.ldc + 2*nr }

// layout places float32 and int slices in the arena at unaligned offsets.
type layout struct {
	rng *rand.Rand
	buf bytes.Buffer
}

func (l *layout) put(data any) uint64 {
	for l.buf.Len()%4 != 0 {
		l.buf.WriteByte(0)
	}
	// Start 4 bytes past a 64-byte boundary, plus a random number of floats: never aligned for zmm.
	for l.buf.Len()%64 != 4*(1+l.rng.IntN(15)) {
		l.buf.Write([]byte{0, 0, 0, 0})
	}
	at := l.buf.Len()
	if err := binary.Write(&l.buf, binary.LittleEndian, data); err != nil {
		panic(err)
	}
	return uint64(arenaAddr + at)
}

func randomFloats(rng *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.NormFloat64())
	}
	return s
}

// withC lays out C (6 rows of 32 used columns, row stride ldc) between guards and computes the
// reference from B's row p given by rowB.
func (c *emuCase) withC(l *layout, a []float32, rowB func(p, j int) float32) uint64 {
	full := randomFloats(l.rng, guard+c.written()+guard)
	c.c0 = full
	c.cLen = len(full)
	addr := l.put(full)
	c.cOff = int(addr - arenaAddr)
	c.want, c.bound = make([]float64, mr*2*nr), make([]float64, mr*2*nr)
	for i := 0; i < mr; i++ {
		for j := 0; j < 2*nr; j++ {
			s := float64(full[guard+i*c.ldc+j])
			bound := math.Abs(s)
			for p := 0; p < c.kc; p++ {
				v := float64(a[p*mr+i]) * float64(rowB(p, j))
				s += v
				bound += math.Abs(v)
			}
			c.want[i*2*nr+j], c.bound[i*2*nr+j] = s, bound
		}
	}
	return addr + 4*guard
}

func packedCase(rng *rand.Rand, kc, ldc int) emuCase {
	l := &layout{rng: rng}
	c := emuCase{name: fmt.Sprintf("kc=%d,ldc=%d", kc, ldc), ldc: ldc, kc: kc}
	a, b0, b1 := randomFloats(rng, max(1, kc*mr)), randomFloats(rng, max(1, kc*nr)), randomFloats(rng, max(1, kc*nr))
	pa, pb0, pb1 := l.put(a), l.put(b0), l.put(b1)
	pc := c.withC(l, a, func(p, j int) float32 {
		if j < nr {
			return b0[p*nr+j]
		}
		return b1[p*nr+j-nr]
	})
	c.args = []uint64{uint64(kc), pa, pb0, pb1, pc, uint64(ldc)}
	c.arena = l.buf.Bytes()
	return c
}

func rowsCase32(rng *rand.Rand, kc, ldc int) emuCase {
	l := &layout{rng: rng}
	c := emuCase{name: fmt.Sprintf("kc=%d,ldc=%d", kc, ldc), ldc: ldc, kc: kc}
	a := randomFloats(rng, max(1, kc*mr))
	b := randomFloats(rng, 500)
	off := make([]int64, max(1, kc))
	for p := range off {
		off[p] = int64(rng.IntN(len(b) - 2*nr + 1)) // any element, not only aligned ones
	}
	pa, pb, poff := l.put(a), l.put(b), l.put(off)
	pc := c.withC(l, a, func(p, j int) float32 { return b[int(off[p])+j] })
	c.args = []uint64{uint64(kc), pa, pb, poff, pc, uint64(ldc)}
	c.arena = l.buf.Bytes()
	return c
}

// machineCode returns the bytes of one of the AVX-512 kernels from the running test binary: from its
// entry to the first address the runtime's function table assigns to another function.
func machineCode(t *testing.T, name string) []byte {
	t.Helper()
	k, rows := wideKernelAddrs()
	entry := map[string]uintptr{"kernel6x32": k, "kernelRows6x32": rows}[name]
	f := runtime.FuncForPC(entry)
	if entry == 0 || f == nil || f.Entry() != entry || !strings.HasSuffix(f.Name(), "sgemm."+name) {
		t.Fatalf("no function table entry for sgemm.%s at %#x", name, entry)
	}
	n := uintptr(0)
	for ; n < 1<<14; n++ {
		if g := runtime.FuncForPC(entry + n); g == nil || g.Entry() != entry {
			break
		}
	}
	mem, err := os.Open("/proc/self/mem")
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	code := make([]byte, n)
	if _, err := mem.ReadAt(code, int64(entry)); err != nil {
		t.Fatalf("reading sgemm.%s's code: %v", name, err)
	}
	return code
}

func runEmulated(t *testing.T, python, fn string, cases []emuCase) {
	code := machineCode(t, fn)
	type jsonCase struct {
		Args   []uint64 `json:"args"`
		Writes [][2]any `json:"writes"`
		Reads  [][2]int `json:"reads"`
	}
	job := struct {
		Code      string     `json:"code"`
		CodeAddr  int        `json:"code_addr"`
		ArenaAddr int        `json:"arena_addr"`
		ArenaSize int        `json:"arena_size"`
		Cases     []jsonCase `json:"cases"`
	}{Code: hex.EncodeToString(code), CodeAddr: codeAddr, ArenaAddr: arenaAddr, ArenaSize: arenaSize}
	for _, c := range cases {
		if len(c.arena) > arenaSize {
			t.Fatalf("%s: %d bytes do not fit the arena", c.name, len(c.arena))
		}
		job.Cases = append(job.Cases, jsonCase{
			Args:   c.args,
			Writes: [][2]any{{arenaAddr, hex.EncodeToString(c.arena)}},
			Reads:  [][2]int{{arenaAddr + c.cOff, 4 * c.cLen}},
		})
	}
	in, err := json.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, "testdata/emulate.py")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	var res struct {
		Error   string `json:"error"`
		Results []struct {
			Reads        []string `json:"reads"`
			Instructions int      `json:"instructions"`
		} `json:"results"`
	}
	if err := json.Unmarshal(out, &res); err != nil || res.Error != "" || runErr != nil {
		t.Fatalf("emulating %s: %v %s\n%s%s", fn, runErr, res.Error, out, stderr.String())
	}
	if len(res.Results) != len(cases) {
		t.Fatalf("emulating %s: %d results for %d cases", fn, len(res.Results), len(cases))
	}
	insns := 0
	for n, c := range cases {
		raw, err := hex.DecodeString(res.Results[n].Reads[0])
		if err != nil || len(raw) != 4*c.cLen {
			t.Fatalf("%s %s: bad read-back (%d bytes, %v)", fn, c.name, len(raw), err)
		}
		insns += res.Results[n].Instructions
		got := make([]float32, c.cLen)
		if err := binary.Read(bytes.NewReader(raw), binary.LittleEndian, got); err != nil {
			t.Fatal(err)
		}
		for idx := range got {
			r, col := (idx-guard)/c.ldc, (idx-guard)%c.ldc
			inTile := idx >= guard && idx < guard+c.written() && col < 2*nr
			if !inTile {
				if got[idx] != c.c0[idx] {
					t.Fatalf("%s %s: wrote outside the tile at float %d of C", fn, c.name, idx-guard)
				}
				continue
			}
			w, b := c.want[r*2*nr+col], c.bound[r*2*nr+col]
			if tol := 1e-6*b*math.Sqrt(float64(c.kc+1)) + 1e-30; math.IsNaN(float64(got[idx])) || math.Abs(float64(got[idx])-w) > tol {
				t.Fatalf("%s %s: C[%d][%d] = %v, want %v (tolerance %.3g)", fn, c.name, r, col, got[idx], w, tol)
			}
		}
	}
	t.Logf("%s: %d cases, %d emulated instructions", fn, len(cases), insns)
}
