package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// The checkpoint encoding (see the format comment in checkpoint.go): checksums, the canonical
// header, and the checks a decoder makes.

// checksumV1 is the version 1 checksum: the "yinsh" JSON, a zero byte, the data section.
func checksumV1(metaJSON, data []byte) string {
	h := sha256.New()
	h.Write(metaJSON)
	h.Write([]byte{0})
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// checksumV2 is the version 2 checksum (see the format comment at the top of this file): SHA-256
// over a canonical encoding of every __metadata__ entry but "sha256" and every tensor entry, then the
// data section.
func checksumV2(meta map[string]string, names []string, entries map[string]stEntry, data []byte) string {
	h := sha256.New()
	str := func(s string) {
		io.WriteString(h, strconv.Itoa(len(s)))
		io.WriteString(h, ":")
		io.WriteString(h, s)
	}
	io.WriteString(h, "yinsh-zero checkpoint v2\n")
	keys := make([]string, 0, len(meta))
	for k := range meta {
		if k != metaSum {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		io.WriteString(h, "M")
		str(k)
		str(meta[k])
	}
	for _, n := range names { // sorted
		e := entries[n]
		dims := make([]string, len(e.Shape))
		for i, d := range e.Shape {
			dims[i] = strconv.Itoa(d)
		}
		io.WriteString(h, "T")
		str(n)
		str(e.DType)
		str(strings.Join(dims, ","))
		str(strconv.FormatInt(e.DataOffsets[0], 10))
		str(strconv.FormatInt(e.DataOffsets[1], 10))
	}
	io.WriteString(h, "D")
	io.WriteString(h, strconv.Itoa(len(data)))
	io.WriteString(h, ":")
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// layoutEntries returns the tensor entries encodeData lays out for these tensors (names sorted).
func layoutEntries(names []string, tensors map[string]*Tensor) map[string]stEntry {
	entries := make(map[string]stEntry, len(names))
	var off int64
	for _, n := range names {
		t := tensors[n]
		end := off + 4*int64(len(t.Data))
		entries[n] = stEntry{DType: "F32", Shape: t.Shape, DataOffsets: [2]int64{off, end}}
		off = end
	}
	return entries
}

// EncodeCheckpoint validates the checkpoint and returns the file bytes (format version
// FormatVersion).
func EncodeCheckpoint(c *Checkpoint) ([]byte, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("model: checkpoint: %w", err)
	}
	metaJSON, err := json.Marshal(c.Meta)
	if err != nil {
		return nil, fmt.Errorf("model: checkpoint: %w", err)
	}
	names, data, err := encodeData(c.Tensors)
	if err != nil {
		return nil, err
	}
	meta := map[string]string{
		metaFormat:  FormatName,
		metaVersion: strconv.Itoa(FormatVersion),
		metaJSONKey: string(metaJSON),
	}
	meta[metaSum] = checksumV2(meta, names, layoutEntries(names, c.Tensors), data)
	header, err := encodeHeader(names, c.Tensors, meta)
	if err != nil {
		return nil, err
	}
	return append(header, data...), nil
}

// DecodeCheckpoint parses and fully checks checkpoint bytes: safetensors structure, format marker and
// version, checksum, metadata (every field: encoding version, architecture ranges, …) and tensor
// names and shapes. Version 1 files (see the format comment) are read with their checksum, which does
// not cover the tensor table; version 2 files are checked byte for byte.
func DecodeCheckpoint(b []byte) (*Checkpoint, error) {
	h, data, err := splitSafetensors(b)
	if err != nil {
		return nil, err
	}
	e, err := checkpointEntries(h.meta)
	if err != nil {
		return nil, err
	}
	var got string
	switch e.version {
	case 1:
		got = checksumV1([]byte(e.metaJSON), data)
	default:
		got = checksumV2(h.meta, h.names, h.entries, data)
	}
	if got != e.sum {
		return nil, fmt.Errorf("checksum mismatch: file says sha256 %.12s…, content hashes to %.12s… (corrupt or modified)", e.sum, got)
	}
	meta, err := checkHeader(h, b[:8+h.length], e)
	if err != nil {
		return nil, err
	}
	c := &Checkpoint{Meta: meta, Tensors: h.tensors(data)}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// ckEntries are the checkpoint entries of a __metadata__.
type ckEntries struct {
	version  int
	metaJSON string
	sum      string
}

// checkpointEntries checks a checkpoint's __metadata__ (the format marker and version, no unknown
// entries, a well-formed checksum) and returns its entries, or says why it is not a checkpoint.
func checkpointEntries(meta map[string]string) (ckEntries, error) {
	if f, ok := meta[metaFormat]; !ok || f != FormatName {
		if !ok {
			return ckEntries{}, errors.New("a safetensors file but not a YINSH Zero checkpoint (no __metadata__ format entry)")
		}
		return ckEntries{}, fmt.Errorf("a safetensors file but not a YINSH Zero checkpoint (format %.40q)", f)
	}
	e := ckEntries{version: 1}
	if v, ok := meta[metaVersion]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || strconv.Itoa(n) != v {
			return ckEntries{}, fmt.Errorf("corrupt checkpoint: format version %.40q is not a number", v)
		}
		if n < MinFormatVersion || n > FormatVersion {
			return ckEntries{}, fmt.Errorf("checkpoint format version %d, this build reads %d..%d", n, MinFormatVersion, FormatVersion)
		}
		e.version = n
	}
	for k := range meta {
		switch k {
		case metaFormat, metaVersion, metaJSONKey, metaSum:
		default:
			return ckEntries{}, fmt.Errorf("corrupt checkpoint: unknown __metadata__ entry %.40q", k)
		}
	}
	var ok bool
	if e.metaJSON, ok = meta[metaJSONKey]; !ok {
		return ckEntries{}, errors.New("corrupt checkpoint: no yinsh metadata")
	}
	if e.sum, ok = meta[metaSum]; !ok {
		return ckEntries{}, errors.New("corrupt checkpoint: no sha256 checksum")
	}
	if !isHexSHA256(e.sum) {
		return ckEntries{}, fmt.Errorf("corrupt checkpoint: sha256 %.70q is not 64 lowercase hex digits", e.sum)
	}
	return e, nil
}

func isHexSHA256(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// decodeMetadata decodes the "yinsh" JSON strictly (no unknown fields, nothing after the object) and
// validates it.
func decodeMetadata(metaJSON string) (Metadata, error) {
	var m Metadata
	dec := json.NewDecoder(strings.NewReader(metaJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Metadata{}, fmt.Errorf("corrupt checkpoint metadata: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Metadata{}, errors.New("corrupt checkpoint metadata: data after the JSON object")
	}
	if err := m.validate(); err != nil {
		return Metadata{}, err
	}
	return m, nil
}

// checkHeader makes the checks that need only the header (hdr: its bytes, length prefix included):
// the metadata, the layout (version 2: the canonical header byte for byte; version 1: the tensors in
// name order) and the tensor names and shapes against the architecture.
func checkHeader(h *stHeader, hdr []byte, e ckEntries) (Metadata, error) {
	m, err := decodeMetadata(e.metaJSON)
	if err != nil {
		return Metadata{}, err
	}
	if e.version >= 2 {
		want, err := h.canonicalHeader()
		if err != nil {
			return Metadata{}, fmt.Errorf("corrupt header: %v", err)
		}
		if !bytes.Equal(hdr, want) {
			i := 0
			for i < len(hdr) && i < len(want) && hdr[i] == want[i] {
				i++
			}
			return Metadata{}, fmt.Errorf("corrupt header: not the canonical version %d header (it differs at byte %d; edited?)", e.version, i)
		}
	} else if err := h.sortedLayout(); err != nil {
		return Metadata{}, fmt.Errorf("corrupt header: %v", err)
	}
	want := m.ExpectedSpecs()
	seen := make(map[string]bool, len(want))
	for _, s := range want {
		seen[s.Name] = true
		t, ok := h.entries[s.Name]
		if !ok {
			return Metadata{}, fmt.Errorf("missing tensor %s %v (architecture %s)", s.Name, s.Shape, m.Net.describe())
		}
		if !sameShape(t.Shape, s.Shape) {
			return Metadata{}, fmt.Errorf("tensor %s has shape %v, the architecture needs %v", s.Name, t.Shape, s.Shape)
		}
	}
	var extra []string
	for _, n := range h.names {
		if !seen[n] {
			extra = append(extra, errName(n))
		}
	}
	if len(extra) > 0 {
		if len(extra) > 5 {
			extra = append(extra[:5], fmt.Sprintf("and %d more", len(extra)-5))
		}
		return Metadata{}, fmt.Errorf("unexpected tensors %s (not part of a %s %s file)", strings.Join(extra, ", "), m.Net.describe(), m.Kind)
	}
	return m, nil
}
