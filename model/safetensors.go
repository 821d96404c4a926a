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
	"slices"
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
// We write tensors sorted by name, contiguous, and only read F32. The reader is strict: no duplicate
// keys at any level of the header, every tensor entry has exactly the keys dtype, shape and
// data_offsets (two offsets), and the tensors cover the data section exactly, without gaps or
// overlaps.

// maxHeader bounds the JSON header so a foreign file cannot make us allocate gigabytes.
const maxHeader = 100 << 20

type stEntry struct {
	DType       string   `json:"dtype"`
	Shape       []int    `json:"shape"`
	DataOffsets [2]int64 `json:"data_offsets"`
}

// stHeader is a parsed and checked safetensors header.
type stHeader struct {
	// length is N, the length of the JSON header (padding included).
	length uint64
	// meta is __metadata__ (empty when absent).
	meta map[string]string
	// names lists the tensors, sorted by name.
	names   []string
	entries map[string]stEntry
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
func encodeHeader(names []string, tensors map[string]*Tensor, meta map[string]string) ([]byte, error) {
	shapes := make([][]int, len(names))
	for i, n := range names {
		shapes[i] = tensors[n].Shape
	}
	return layoutHeader(names, shapes, meta)
}

// layoutHeader is the canonical header of F32 tensors with these names (sorted) and shapes, stored
// contiguously in that order: the length prefix, then JSON built in a fixed order (__metadata__ with
// its keys sorted, then the tensors by name) without whitespace, padded with spaces to a multiple
// of 8. Equal content gives equal bytes.
func layoutHeader(names []string, shapes [][]int, meta map[string]string) ([]byte, error) {
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
		shape := shapes[i]
		if shape == nil {
			shape = []int{}
		}
		end := off + 4*int64(numel(shape))
		e, err := json.Marshal(stEntry{DType: "F32", Shape: shape, DataOffsets: [2]int64{off, end}})
		if err != nil {
			return nil, err
		}
		off = end
		if i > 0 || len(meta) > 0 {
			h.WriteString(",")
		}
		nb, err := json.Marshal(n)
		if err != nil {
			return nil, err
		}
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

// canonicalHeader is layoutHeader for the tensors and metadata of h.
func (h *stHeader) canonicalHeader() ([]byte, error) {
	shapes := make([][]int, len(h.names))
	for i, n := range h.names {
		shapes[i] = h.entries[n].Shape
	}
	return layoutHeader(h.names, shapes, h.meta)
}

// errNotSafetensors marks input that does not even parse as a safetensors file.
var errNotSafetensors = errors.New("not a safetensors file")

// headerLength checks the 8-byte length prefix of a file of fileLen bytes (-1: unknown).
func headerLength(lenb []byte, fileLen int64) (uint64, error) {
	n := binary.LittleEndian.Uint64(lenb)
	if n < 2 || n > maxHeader {
		return 0, fmt.Errorf("%w: it does not start with a header length (the first 8 bytes read %s)", errNotSafetensors, headerLengthText(n))
	}
	if fileLen >= 0 && uint64(fileLen-8) < n {
		return 0, fmt.Errorf("truncated: header length %d, only %d bytes follow", n, fileLen-8)
	}
	return n, nil
}

// splitSafetensors parses and checks the header of a whole safetensors file and returns it with the
// data section.
func splitSafetensors(b []byte) (*stHeader, []byte, error) {
	if len(b) < 8 {
		return nil, nil, fmt.Errorf("%w: %d bytes, too short for a header", errNotSafetensors, len(b))
	}
	n := binary.LittleEndian.Uint64(b)
	if n < 2 || n > maxHeader {
		return nil, nil, fmt.Errorf("%w: it does not start with a header length (the first 8 bytes read %s)", errNotSafetensors, headerLengthText(n))
	}
	if len(b) == 8 || b[8] != '{' {
		return nil, nil, fmt.Errorf("%w: no JSON header after the length", errNotSafetensors)
	}
	if uint64(len(b)-8) < n {
		return nil, nil, fmt.Errorf("truncated: header length %d, only %d bytes follow", n, len(b)-8)
	}
	data := b[8+n:]
	h, err := parseHeader(b[8:8+n], int64(len(data)))
	if err != nil {
		return nil, nil, err
	}
	return h, data, nil
}

// decodeObject parses one JSON object, rejecting duplicate keys and anything but whitespace after
// it. It returns the keys in file order and the raw values.
func decodeObject(b []byte) ([]string, map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	t, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, nil, errors.New("not a JSON object")
	}
	var keys []string
	vals := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k, ok := t.(string)
		if !ok {
			return nil, nil, fmt.Errorf("object key %v", t)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, fmt.Errorf("%q: %v", k, err)
		}
		if _, dup := vals[k]; dup {
			return nil, nil, fmt.Errorf("duplicate key %q", k)
		}
		keys = append(keys, k)
		vals[k] = v
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, nil, errors.New("data after the JSON object")
	}
	return keys, vals, nil
}

// parseEntry decodes one tensor entry, which must have exactly the keys dtype, shape and
// data_offsets.
func parseEntry(r json.RawMessage) (stEntry, error) {
	keys, vals, err := decodeObject(r)
	if err != nil {
		return stEntry{}, err
	}
	var e stEntry
	var offs []int64
	for _, k := range keys {
		var err error
		switch k {
		case "dtype":
			err = json.Unmarshal(vals[k], &e.DType)
		case "shape":
			err = json.Unmarshal(vals[k], &e.Shape)
		case "data_offsets":
			err = json.Unmarshal(vals[k], &offs)
		default:
			return stEntry{}, fmt.Errorf("unknown field %q", k)
		}
		if err != nil {
			return stEntry{}, fmt.Errorf("%s: %v", k, err)
		}
	}
	for _, k := range []string{"dtype", "shape", "data_offsets"} {
		if _, ok := vals[k]; !ok {
			return stEntry{}, fmt.Errorf("no %s", k)
		}
	}
	if len(offs) != 2 {
		return stEntry{}, fmt.Errorf("data_offsets %v, want [begin, end]", offs)
	}
	if e.Shape == nil {
		e.Shape = []int{}
	}
	e.DataOffsets = [2]int64{offs[0], offs[1]}
	return e, nil
}

// parseHeader parses and checks the JSON header of a file whose data section is dataLen bytes: the
// structure, F32 dtypes, shapes matching offsets, and the tensors covering the data section exactly.
func parseHeader(hdr []byte, dataLen int64) (*stHeader, error) {
	if len(hdr) == 0 || hdr[0] != '{' {
		return nil, fmt.Errorf("%w: no JSON header after the length", errNotSafetensors)
	}
	keys, raw, err := decodeObject(hdr)
	if err != nil {
		return nil, fmt.Errorf("%w: header: %v", errNotSafetensors, err)
	}
	h := &stHeader{length: uint64(len(hdr)), meta: map[string]string{}, entries: make(map[string]stEntry, len(raw))}
	if m, ok := raw["__metadata__"]; ok {
		mkeys, mvals, err := decodeObject(m)
		if err != nil {
			return nil, fmt.Errorf("corrupt header: __metadata__: %v", err)
		}
		for _, k := range mkeys {
			var v string
			if err := json.Unmarshal(mvals[k], &v); err != nil {
				return nil, fmt.Errorf("corrupt header: __metadata__ %q: %v", k, err)
			}
			h.meta[k] = v
		}
	}
	type span struct {
		name       string
		begin, end int64
	}
	spans := make([]span, 0, len(raw))
	for _, name := range keys {
		if name == "__metadata__" {
			continue
		}
		qn := errName(name)
		e, err := parseEntry(raw[name])
		if err != nil {
			return nil, fmt.Errorf("corrupt header: tensor %s: %v", qn, err)
		}
		if e.DType != "F32" {
			return nil, fmt.Errorf("tensor %s: dtype %q, only F32 is supported", qn, e.DType)
		}
		for _, d := range e.Shape {
			if d < 0 || d > 1<<30 {
				return nil, fmt.Errorf("corrupt header: tensor %s: shape %v", qn, e.Shape)
			}
		}
		cnt := int64(0)
		if !slices.Contains(e.Shape, 0) {
			cnt = 1
			for _, d := range e.Shape {
				if cnt > dataLen/4/int64(d) { // 4·cnt·d would exceed the data section (and no product overflows)
					return nil, fmt.Errorf("tensor %s: shape %v is larger than the file's %d data bytes (truncated?)", qn, e.Shape, dataLen)
				}
				cnt *= int64(d)
			}
		}
		begin, end := e.DataOffsets[0], e.DataOffsets[1]
		if begin < 0 || end < begin || end-begin != 4*cnt {
			return nil, fmt.Errorf("corrupt header: tensor %s: data_offsets %v do not match shape %v", qn, e.DataOffsets, e.Shape)
		}
		if end > dataLen {
			return nil, fmt.Errorf("truncated: tensor %s ends at data byte %d, file has %d", qn, end, dataLen)
		}
		spans = append(spans, span{qn, begin, end})
		h.entries[name] = e
		h.names = append(h.names, name)
	}
	sort.Strings(h.names)
	// The data section must be exactly covered, without overlaps or gaps.
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].begin != spans[j].begin {
			return spans[i].begin < spans[j].begin
		}
		return spans[i].end < spans[j].end
	})
	var pos int64
	for _, s := range spans {
		if s.begin != pos {
			return nil, fmt.Errorf("corrupt header: tensor %s starts at data byte %d, expected %d", s.name, s.begin, pos)
		}
		pos = s.end
	}
	if pos != dataLen {
		return nil, fmt.Errorf("corrupt file: tensors cover %d data bytes, file has %d", pos, dataLen)
	}
	return h, nil
}

// sortedLayout says whether the tensors are stored contiguously in name order (as encodeData writes
// them), or names the first one that is not.
func (h *stHeader) sortedLayout() error {
	var pos int64
	for _, n := range h.names {
		e := h.entries[n]
		if e.DataOffsets[0] != pos {
			return fmt.Errorf("tensor %s starts at data byte %d, where the tensors in name order put it at %d (offsets swapped or edited?)", errName(n), e.DataOffsets[0], pos)
		}
		pos = e.DataOffsets[1]
	}
	return nil
}

// tensors decodes the tensors of h from its data section.
func (h *stHeader) tensors(data []byte) map[string]*Tensor {
	out := make(map[string]*Tensor, len(h.names))
	for _, name := range h.names {
		e := h.entries[name]
		src := data[e.DataOffsets[0]:e.DataOffsets[1]]
		t := &Tensor{Shape: append([]int{}, e.Shape...), Data: make([]float32, len(src)/4)}
		for i := range t.Data {
			t.Data[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
		}
		out[name] = t
	}
	return out
}

// decodeSafetensors parses a whole safetensors file. It returns the tensors, the string metadata and
// the data section (for checksums). Only F32 tensors are accepted.
func decodeSafetensors(b []byte) (map[string]*Tensor, map[string]string, []byte, error) {
	h, data, err := splitSafetensors(b)
	if err != nil {
		return nil, nil, nil, err
	}
	return h.tensors(data), h.meta, data, nil
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

// errName is a tensor name for an error message: as it is when short and printable, quoted and cut
// to 80 characters otherwise.
func errName(s string) string {
	if printableField("", s, 80) == nil {
		return s
	}
	return fmt.Sprintf("%.80q", s)
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
