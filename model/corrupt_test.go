package model

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
)

// TestCorruptedCheckpointsRejected corrupts a real small checkpoint in several hundred
// deterministic ways and checks that DecodeCheckpoint rejects every one, and that ReadMetadata
// (readHeader) rejects every corruption of the kinds the header and the file size reveal (the
// layout, the length prefix, truncation, dtypes). Corruptions only the checksum can reveal (data
// bytes, metadata values) are counted for ReadMetadata but not required of it.
func TestCorruptedCheckpointsRejected(t *testing.T) {
	c := smallCheckpoint(t)
	good, err := EncodeCheckpoint(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeCheckpoint(good); err != nil {
		t.Fatal(err)
	}
	if err := headerErr(good); err != nil {
		t.Fatal(err)
	}
	n := int(binary.LittleEndian.Uint64(good))
	hdrEnd := 8 + n
	if got := splitRaw(t, good).bytes(t); !bytes.Equal(got, good) {
		t.Fatal("rawHeader does not rebuild the writer's header")
	}
	rng := rand.New(rand.NewPCG(2026, 12))

	type corruption struct {
		kind string
		b    []byte
		// header: ReadMetadata must reject it too
		header bool
	}
	var cs []corruption
	add := func(kind string, b []byte, header bool) {
		if bytes.Equal(b, good) {
			t.Fatalf("%s: corruption #%d is the good file", kind, len(cs))
		}
		cs = append(cs, corruption{kind, b, header})
	}
	flipAt := func(i int) []byte {
		b := append([]byte(nil), good...)
		b[i] ^= byte(1 + rng.IntN(255))
		return b
	}
	withLen := func(v uint64) []byte {
		b := append([]byte(nil), good...)
		binary.LittleEndian.PutUint64(b, v)
		return b
	}

	// single byte changes (XOR with a random non-zero byte) at random positions
	for range 120 {
		add("header byte flip", flipAt(8+rng.IntN(n)), false)
	}
	for range 60 {
		add("data byte flip", flipAt(hdrEnd+rng.IntN(len(good)-hdrEnd)), false)
	}
	// the header length field
	for range 8 {
		add("header length field", flipAt(rng.IntN(8)), true)
	}
	for _, v := range []uint64{0, 1, 2, uint64(n - 8), uint64(n - 1), uint64(n + 1), uint64(n + 8), uint64(n + 64), uint64(len(good)), 1 << 63} {
		add("header length field", withLen(v), true)
	}
	// truncations
	cuts := []int{0, 1, 7, 8, 9, hdrEnd / 2, hdrEnd - 1, hdrEnd, hdrEnd + 1, hdrEnd + 4, len(good) - 4, len(good) - 1}
	for range 28 {
		cuts = append(cuts, rng.IntN(len(good)))
	}
	for _, k := range cuts {
		add("truncation", good[:k:k], true)
	}
	// bytes added to the data section
	add("appended bytes", append(append([]byte(nil), good...), 0, 0, 0, 0), true)
	add("appended bytes", append(append([]byte(nil), good...), good[hdrEnd:hdrEnd+8]...), true)
	{
		b := append([]byte(nil), good[:hdrEnd+16]...)
		b = append(b, 1, 2, 3, 4)
		add("appended bytes", append(b, good[hdrEnd+16:]...), true)
	}

	// pairs of same-shape tensors
	byShape := map[string][]string{}
	for name, tt := range c.Tensors {
		k := fmt.Sprint(tt.Shape)
		byShape[k] = append(byShape[k], name)
	}
	var pairs [][2]string
	var shapes []string
	for k, names := range byShape {
		sort.Strings(names)
		if len(names) > 1 {
			shapes = append(shapes, k)
		}
	}
	sort.Strings(shapes)
	for _, k := range shapes {
		names := byShape[k]
		for i := 0; i < len(names) && len(pairs) < 40; i++ {
			for j := i + 1; j < len(names) && len(pairs) < 40; j++ {
				pairs = append(pairs, [2]string{names[i], names[j]})
			}
		}
	}
	rng.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
	pairs = pairs[:min(len(pairs), 25)]
	pairs = append(pairs, [2]string{"tower.0.conv1.weight", "tower.0.conv2.weight"}, [2]string{"stem.bn.weight", "stem.bn.running_var"})
	for _, p := range pairs {
		add("swapped offsets (same shape)", editHeader(t, good, func(h *rawHeader) { h.swapOffsets(p[0], p[1]) }), true)
		add("swapped names (same shape)", editHeader(t, good, func(h *rawHeader) {
			i, j := indexOf(h.order, p[0]), indexOf(h.order, p[1])
			h.order[i], h.order[j] = h.order[j], h.order[i]
			h.entries[p[0]], h.entries[p[1]] = h.entries[p[1]], h.entries[p[0]]
		}), true)
	}
	// dtypes
	names := sortedNames(c.Tensors)
	for _, dt := range []string{"F16", "BF16", "F64", "I32", "U8", "f32", "", "F32 ", "F8_E4M3", "BOOL"} {
		name := names[rng.IntN(len(names))]
		add("changed dtype", editHeader(t, good, func(h *rawHeader) {
			e := h.entries[name]
			e.DType = dt
			h.entries[name] = e
		}), true)
	}
	// shapes and offsets edited together so that the structure stays consistent
	add("reshaped tensor", editHeader(t, good, func(h *rawHeader) {
		e := h.entries["tower.0.conv1.weight"]
		e.Shape = []int{1, 4, 3, 3}
		h.entries["tower.0.conv1.weight"] = e
	}), true)
	add("reshaped tensor", editHeader(t, good, func(h *rawHeader) {
		e := h.entries["policy.fc.weight"]
		e.Shape = []int{121, 2142}
		h.entries["policy.fc.weight"] = e
	}), true)

	// metadata edits that keep the old checksum
	metaJSON := splitRaw(t, good).meta["yinsh"]
	jsonEdit := func(old, new string) func(m map[string]string) {
		return func(m map[string]string) {
			j := strings.Replace(m["yinsh"], old, new, 1)
			if j == m["yinsh"] {
				t.Fatalf("no %s in %s", old, m["yinsh"])
			}
			m["yinsh"] = j
		}
	}
	var other Metadata
	json.Unmarshal([]byte(metaJSON), &other)
	other.Step++
	otherJSON, _ := json.Marshal(other)
	for _, e := range []func(m map[string]string){
		jsonEdit(`"step":17`, `"step":18`),
		jsonEdit(`"step":17`, `"step":1700`),
		jsonEdit(`"variant":"standard"`, `"variant":"blitz"`),
		jsonEdit(`"id":"corrupt-test"`, `"id":"another-run"`),
		jsonEdit(`"generation":3`, `"generation":4`),
		jsonEdit(`"backend":"gonum"`, `"backend":"torch"`),
		jsonEdit(`"name":"min"`, `"name":"max"`),
		jsonEdit(`"lr":0.02`, `"lr":0.2`),
		jsonEdit(`"momentum":0.9`, `"momentum":0.5`),
		jsonEdit(`"nesterov":true,`, ``),
		jsonEdit(`,"run":{"id":"corrupt-test","generation":3}`, ``),
		jsonEdit(`"kind":"training"`, `"kind":"inference"`),
		jsonEdit(`{`, `{ `),
		func(m map[string]string) { m["yinsh"] = string(otherJSON) },
		func(m map[string]string) { m["yinsh_version"] = "1" },
		func(m map[string]string) { delete(m, "yinsh_version") },
		func(m map[string]string) { m["yinsh_version"] = "3" },
		func(m map[string]string) { m["format"] = "yinsh-zero-v2" },
		func(m map[string]string) { m["note"] = "edited" },
		func(m map[string]string) { m["sha256"] = strings.ToUpper(m["sha256"]) },
		func(m map[string]string) { m["sha256"] = m["sha256"][:63] + "0" },
		func(m map[string]string) { m["sha256"] = m["sha256"][:32] },
		func(m map[string]string) { m["sha256"] = checksumV1([]byte(m["yinsh"]), good[hdrEnd:]) },
		func(m map[string]string) { delete(m, "sha256") },
		func(m map[string]string) { m["yinsh"] = "" },
	} {
		add("metadata edit, old checksum", editHeader(t, good, func(h *rawHeader) { e(h.meta) }), false)
	}
	// JSON reformatted without changing what it says (the canonical checksum is unchanged)
	for _, e := range []func(obj []byte) []byte{
		func(o []byte) []byte {
			return bytes.Replace(o, []byte(`,"stem.conv.weight":`), []byte(`, "stem.conv.weight":`), 1)
		},
		func(o []byte) []byte { return append([]byte("{\n"), o[1:]...) },
		func(o []byte) []byte { return append(o, "        "...) },
		func(o []byte) []byte { return append(o, '\t') },
		func(o []byte) []byte {
			return bytes.Replace(o, []byte(`"stem.bn.bias"`), []byte(`"\u0073tem.bn.bias"`), 1)
		},
		func(o []byte) []byte {
			return bytes.Replace(o, []byte(`"dtype":"F32"`), []byte(`"dtype":"F\u0033\u0032"`), 1)
		},
		func(o []byte) []byte {
			return bytes.Replace(o, []byte(`"data_offsets":[0,`), []byte(`"data_offsets":[ 0,`), 1)
		},
	} {
		add("reformatted JSON", editJSON(good, e), true)
	}
	add("reformatted JSON", editHeader(t, good, func(h *rawHeader) { // tensors listed in reverse
		for i, j := 0, len(h.order)-1; i < j; i, j = i+1, j-1 {
			h.order[i], h.order[j] = h.order[j], h.order[i]
		}
	}), true)
	// a version 2 file rewritten as version 1 with a recomputed version 1 checksum, after swapping
	// offsets: the one tamper a version 1 checksum lets through, caught by the name-order check
	for _, p := range pairs[:5] {
		add("v1 relabel + swapped offsets, recomputed v1 checksum", editHeader(t, good, func(h *rawHeader) {
			h.swapOffsets(p[0], p[1])
			delete(h.meta, "yinsh_version")
			h.meta["sha256"] = checksumV1([]byte(h.meta["yinsh"]), h.data)
		}), true)
	}

	type tally struct {
		n, decodeRejected, headerRejected int
		reasons                           map[string]int
	}
	byKind := map[string]*tally{}
	var kinds []string
	total, rejected := 0, 0
	for i, cr := range cs {
		tl := byKind[cr.kind]
		if tl == nil {
			tl = &tally{reasons: map[string]int{}}
			byKind[cr.kind] = tl
			kinds = append(kinds, cr.kind)
		}
		tl.n++
		total++
		if _, err := DecodeCheckpoint(cr.b); err != nil {
			tl.decodeRejected++
			rejected++
			tl.reasons[reason(err)]++
		} else {
			t.Errorf("%s #%d: DecodeCheckpoint accepted it", cr.kind, i)
		}
		if err := headerErr(cr.b); err != nil {
			tl.headerRejected++
		} else if cr.header {
			t.Errorf("%s #%d: ReadMetadata accepted it", cr.kind, i)
		}
	}
	for _, k := range kinds {
		tl := byKind[k]
		var rs []string
		for r, c := range tl.reasons {
			rs = append(rs, fmt.Sprintf("%s %d", r, c))
		}
		sort.Strings(rs)
		t.Logf("%-52s %3d corrupted files, %3d rejected by DecodeCheckpoint, %3d by ReadMetadata (%s)",
			k+":", tl.n, tl.decodeRejected, tl.headerRejected, strings.Join(rs, ", "))
	}
	t.Logf("%d corrupted files, %d rejected", total, rejected)
	if total < 200 {
		t.Fatalf("only %d corruptions", total)
	}
}

func indexOf(s []string, x string) int {
	for i, v := range s {
		if v == x {
			return i
		}
	}
	panic(x)
}

func sortedNames(m map[string]*Tensor) []string {
	var s []string
	for n := range m {
		s = append(s, n)
	}
	sort.Strings(s)
	return s
}

// reason classifies a rejection for the test's log.
func reason(err error) string {
	msg := err.Error()
	for _, r := range []string{"checksum mismatch", "canonical", "name order", "format version", "truncated",
		"not a safetensors file", "dtype", "data_offsets", "cover", "starts at", "sha256", "__metadata__", "not a YINSH Zero checkpoint", "corrupt header", "metadata"} {
		if strings.Contains(msg, r) {
			return r
		}
	}
	return "other"
}
