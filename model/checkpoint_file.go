package model

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"github.com/yinsh-zero/yinsh/internal/atomicfile"
)

// Checkpoint files: reading (the whole file, or its header alone) and writing them atomically. The
// format is described in checkpoint.go; its encoding and checks are in checkpoint_codec.go.

// SaveNet writes net's checkpoint to path atomically, as net.Save does, with the origin recorded in
// its metadata.
func SaveNet(net Net, path string, o Origin) error {
	ck, err := net.Checkpoint()
	if err != nil {
		return err
	}
	ck.Meta.SetOrigin(o)
	return WriteCheckpoint(path, ck)
}

// HeaderInfo is what ReadMetadata reads from the start of a checkpoint file.
type HeaderInfo struct {
	Meta Metadata
	// Version is the checkpoint format version (MinFormatVersion..FormatVersion).
	Version int
	// SHA256 is the checksum the file records (see the format comment; ReadMetadata does not verify
	// it, ReadCheckpoint does).
	SHA256 string
	// Tensors is the number of tensors the header lists.
	Tensors int
}

// ReadMetadata reads the metadata of a checkpoint or inference file from its header alone, without
// reading the tensors: cheap enough to check a file before loading it (its variant, architecture,
// encoding version). It checks everything the header and the file size can tell: the safetensors
// structure, the tensors covering the data section exactly (a truncated file or one with trailing
// bytes is rejected), the format marker and version, every metadata field, the tensor names and
// shapes against the architecture, and the layout (a version 2 header must be canonical byte for
// byte, a version 1 file must store its tensors in name order). It does not verify the checksum,
// which needs the data (ReadCheckpoint verifies it): a metadata or data edit that keeps the header
// well-formed and canonical is only caught there. Errors name the file, as ReadCheckpoint's do.
func ReadMetadata(path string) (HeaderInfo, error) {
	if fi, err := os.Stat(path); err != nil {
		return HeaderInfo{}, fmt.Errorf("model: %w", err)
	} else if !fi.Mode().IsRegular() {
		return HeaderInfo{}, fmt.Errorf("model: checkpoint %s: not a regular file (%s)", path, fi.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return HeaderInfo{}, fmt.Errorf("model: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return HeaderInfo{}, fmt.Errorf("model: %w", err)
	}
	h, err := readHeader(f, st.Size())
	if err != nil {
		return HeaderInfo{}, fmt.Errorf("model: checkpoint %s: %w", path, err)
	}
	return h, nil
}

// readHeader is ReadMetadata on a reader of a file of size bytes, positioned at its start.
func readHeader(r io.Reader, size int64) (HeaderInfo, error) {
	var lenb [8]byte
	if n, err := io.ReadFull(r, lenb[:]); err != nil {
		return HeaderInfo{}, fmt.Errorf("%w: %d bytes, too short for a header", errNotSafetensors, n)
	}
	n := binary.LittleEndian.Uint64(lenb[:])
	if n < 2 || n > maxHeader {
		return HeaderInfo{}, fmt.Errorf("%w: it does not start with a header length (the first 8 bytes read %s)", errNotSafetensors, headerLengthText(n))
	}
	// Read what is there rather than allocating n up front, so that a bogus length cannot make us
	// allocate maxHeader.
	hdr, err := io.ReadAll(io.LimitReader(r, int64(min(n, uint64(max(size-8, 0))))))
	if err != nil {
		return HeaderInfo{}, fmt.Errorf("reading the header: %w", err)
	}
	if len(hdr) == 0 || hdr[0] != '{' {
		return HeaderInfo{}, fmt.Errorf("%w: no JSON header after the length", errNotSafetensors)
	}
	if uint64(len(hdr)) < n {
		return HeaderInfo{}, fmt.Errorf("truncated: header length %d, only %d bytes follow", n, len(hdr))
	}
	h, err := parseHeader(hdr, size-8-int64(n))
	if err != nil {
		return HeaderInfo{}, err
	}
	e, err := checkpointEntries(h.meta)
	if err != nil {
		return HeaderInfo{}, err
	}
	meta, err := checkHeader(h, append(lenb[:], hdr...), e)
	if err != nil {
		return HeaderInfo{}, err
	}
	return HeaderInfo{Meta: meta, Version: e.version, SHA256: e.sum, Tensors: len(h.names)}, nil
}

// WriteCheckpoint validates c and writes it to path atomically (see internal/atomicfile).
func WriteCheckpoint(path string, c *Checkpoint) error {
	b, err := EncodeCheckpoint(c)
	if err != nil {
		return err
	}
	return writeFile(path, b)
}

// ReadCheckpoint reads and checks a checkpoint or inference file. Errors name the file and say what
// is wrong: not a safetensors file, truncated, checksum mismatch, wrong encoding version, wrong
// tensor names or shapes.
func ReadCheckpoint(path string) (*Checkpoint, error) {
	// a device or a named pipe would be read forever (or block): refuse before opening
	if fi, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("model: checkpoint %s: not a regular file (%s)", path, fi.Mode().Type())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	c, err := DecodeCheckpoint(b)
	if err != nil {
		return nil, fmt.Errorf("model: checkpoint %s: %w", path, err)
	}
	return c, nil
}

// writeFile is atomicfile.WriteFile with this package's error prefix.
func writeFile(path string, data []byte) error {
	if err := atomicfile.WriteFile(path, data); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	return nil
}
