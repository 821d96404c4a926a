package model

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
)

// Tensor is a dense float32 tensor, row-major.
type Tensor struct {
	Shape []int     `json:"shape"`
	Data  []float32 `json:"-"`
}

// NewTensor returns a zero tensor of the given shape.
func NewTensor(shape ...int) *Tensor {
	return &Tensor{Shape: append([]int(nil), shape...), Data: make([]float32, numel(shape))}
}

// Clone returns a deep copy.
func (t *Tensor) Clone() *Tensor {
	return &Tensor{Shape: append([]int(nil), t.Shape...), Data: append([]float32(nil), t.Data...)}
}

func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// safetensors layout (https://github.com/huggingface/safetensors):
//
//	8 bytes   little-endian uint64 N, the header length
//	N bytes   JSON object: {"__metadata__": {string: string}, "<name>": {"dtype": "F32",
//	          "shape": [...], "data_offsets": [begin, end]}, ...}, padded with spaces to a multiple of 8
//	rest      tensor data, little-endian; offsets are relative to the start of this section
//
// We write tensors sorted by name, contiguous, and only read F32.

// maxHeader bounds the JSON header so a foreign file cannot make us allocate gigabytes.
const maxHeader = 100 << 20

type stEntry struct {
	DType       string   `json:"dtype"`
	Shape       []int    `json:"shape"`
	DataOffsets [2]int64 `json:"data_offsets"`
}

// encodeSafetensors serialises tensors and string metadata; it returns the header (length prefix
// included) and the data section separately so that callers can hash the data.
func encodeSafetensors(tensors map[string]*Tensor, meta map[string]string) (header, data []byte, err error) {
	names, data, err := encodeData(tensors)
	if err != nil {
		return nil, nil, err
	}
	header, err = encodeHeader(names, tensors, meta)
	return header, data, err
}

// encodeData returns the tensor names, sorted, and the data section: the tensors in that order,
// contiguous, little-endian float32.
func encodeData(tensors map[string]*Tensor) ([]string, []byte, error) {
	names := make([]string, 0, len(tensors))
	var size int
	for n, t := range tensors {
		if numel(t.Shape) != len(t.Data) {
			return nil, nil, fmt.Errorf("model: tensor %s: shape %v holds %d values, data has %d", n, t.Shape, numel(t.Shape), len(t.Data))
		}
		names = append(names, n)
		size += 4 * len(t.Data)
	}
	sort.Strings(names)
	data := make([]byte, 0, size)
	for _, n := range names {
		for _, v := range tensors[n].Data {
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(v))
		}
	}
	return names, data, nil
}

// encodeHeader returns the length prefix and JSON header for tensors laid out as encodeData does.
// The JSON is built in a fixed order (__metadata__, then tensors by name) so that equal content
// gives equal bytes.
func encodeHeader(names []string, tensors map[string]*Tensor, meta map[string]string) ([]byte, error) {
	var h bytes.Buffer
	h.WriteString("{")
	if len(meta) > 0 {
		mb, err := json.Marshal(meta) // map keys are sorted by encoding/json
		if err != nil {
			return nil, err
		}
		h.WriteString(`"__metadata__":`)
		h.Write(mb)
	}
	var off int64
	for i, n := range names {
		t := tensors[n]
		end := off + 4*int64(len(t.Data))
		e, err := json.Marshal(stEntry{DType: "F32", Shape: t.Shape, DataOffsets: [2]int64{off, end}})
		if err != nil {
			return nil, err
		}
		off = end
		if i > 0 || len(meta) > 0 {
			h.WriteString(",")
		}
		nb, _ := json.Marshal(n)
		h.Write(nb)
		h.WriteString(":")
		h.Write(e)
	}
	h.WriteString("}")
	for h.Len()%8 != 0 {
		h.WriteByte(' ')
	}
	header := make([]byte, 8, 8+h.Len())
	binary.LittleEndian.PutUint64(header, uint64(h.Len()))
	return append(header, h.Bytes()...), nil
}

// errNotSafetensors marks input that does not even parse as a safetensors file.
var errNotSafetensors = errors.New("not a safetensors file")

// decodeSafetensors parses a whole safetensors file. It returns the tensors, the string metadata and
// the data section (for checksums). Only F32 tensors are accepted.
func decodeSafetensors(b []byte) (map[string]*Tensor, map[string]string, []byte, error) {
	if len(b) < 8 {
		return nil, nil, nil, fmt.Errorf("%w: %d bytes, too short for a header", errNotSafetensors, len(b))
	}
	n := binary.LittleEndian.Uint64(b)
	if n < 2 || n > maxHeader {
		return nil, nil, nil, fmt.Errorf("%w: it does not start with a header length (the first 8 bytes read %s)", errNotSafetensors, headerLengthText(n))
	}
	if len(b) == 8 || b[8] != '{' {
		return nil, nil, nil, fmt.Errorf("%w: no JSON header after the length", errNotSafetensors)
	}
	if uint64(len(b)-8) < n {
		return nil, nil, nil, fmt.Errorf("truncated: header length %d, only %d bytes follow", n, len(b)-8)
	}
	hdr := b[8 : 8+n]
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(hdr))
	if err := dec.Decode(&raw); err != nil {
		return nil, nil, nil, fmt.Errorf("%w: header: %v", errNotSafetensors, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, nil, nil, fmt.Errorf("corrupt header: data after the JSON object")
	}
	data := b[8+n:]
	meta := map[string]string{}
	if m, ok := raw["__metadata__"]; ok {
		if err := json.Unmarshal(m, &meta); err != nil {
			return nil, nil, nil, fmt.Errorf("corrupt header: __metadata__: %v", err)
		}
		delete(raw, "__metadata__")
	}
	type span struct {
		name       string
		begin, end int64
	}
	spans := make([]span, 0, len(raw))
	tensors := make(map[string]*Tensor, len(raw))
	for name, r := range raw {
		var e stEntry
		dec := json.NewDecoder(bytes.NewReader(r))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return nil, nil, nil, fmt.Errorf("corrupt header: tensor %s: %v", name, err)
		}
		if e.DType != "F32" {
			return nil, nil, nil, fmt.Errorf("tensor %s: dtype %q, only F32 is supported", name, e.DType)
		}
		cnt := int64(1)
		for _, d := range e.Shape {
			if d < 0 || d > 1<<30 {
				return nil, nil, nil, fmt.Errorf("corrupt header: tensor %s: shape %v", name, e.Shape)
			}
			cnt *= int64(d)
			if cnt > int64(len(data)) {
				return nil, nil, nil, fmt.Errorf("tensor %s: shape %v is larger than the file's %d data bytes (truncated?)", name, e.Shape, len(data))
			}
		}
		begin, end := e.DataOffsets[0], e.DataOffsets[1]
		if begin < 0 || end < begin || end-begin != 4*cnt {
			return nil, nil, nil, fmt.Errorf("corrupt header: tensor %s: data_offsets %v do not match shape %v", name, e.DataOffsets, e.Shape)
		}
		if end > int64(len(data)) {
			return nil, nil, nil, fmt.Errorf("truncated: tensor %s ends at data byte %d, file has %d", name, end, len(data))
		}
		spans = append(spans, span{name, begin, end})
		t := &Tensor{Shape: e.Shape, Data: make([]float32, cnt)}
		if t.Shape == nil {
			t.Shape = []int{}
		}
		src := data[begin:end]
		for i := range t.Data {
			t.Data[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
		}
		tensors[name] = t
	}
	// The data section must be exactly covered, without overlaps or gaps.
	sort.Slice(spans, func(i, j int) bool { return spans[i].begin < spans[j].begin })
	var pos int64
	for _, s := range spans {
		if s.begin != pos {
			return nil, nil, nil, fmt.Errorf("corrupt header: tensor %s starts at data byte %d, expected %d", s.name, s.begin, pos)
		}
		pos = s.end
	}
	if pos != int64(len(data)) {
		return nil, nil, nil, fmt.Errorf("corrupt file: tensors cover %d data bytes, file has %d", pos, len(data))
	}
	return tensors, meta, data, nil
}

// ReadSafetensors reads a plain safetensors file (any producer, F32 tensors only) without the
// checkpoint checks: the tensors and the __metadata__ strings.
func ReadSafetensors(path string) (map[string]*Tensor, map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("model: %w", err)
	}
	t, m, err := ReadSafetensorsBytes(b)
	if err != nil {
		return nil, nil, fmt.Errorf("model: %s: %w", path, err)
	}
	return t, m, nil
}

// ReadSafetensorsBytes is ReadSafetensors on the bytes of a file.
func ReadSafetensorsBytes(b []byte) (map[string]*Tensor, map[string]string, error) {
	t, m, _, err := decodeSafetensors(b)
	return t, m, err
}

func itoa(i int) string { return strconv.Itoa(i) }

// headerLengthText describes an implausible header length for an error: small numbers as they are,
// a huge one (text or another format read as a length) as what it likely is.
func headerLengthText(n uint64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d", n)
	}
	return "a number far beyond any header: another kind of file"
}
