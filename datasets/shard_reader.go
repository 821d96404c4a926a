package datasets

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
)

// Reading one shard: the header, then each frame checked (see the layout in shard.go).

// ShardReader reads the records of one shard in order, checking every frame.
type ShardReader struct {
	name   string
	rd     *bufio.Reader
	closer io.Closer
	off    int64 // offset of the next frame
	n      int   // records read
	err    error // sticky: the error (or io.EOF) Next returned
}

// OpenShard opens a shard file and checks its header.
func OpenShard(path string) (*ShardReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	r, err := newShardReader(path, f)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// NewShardReader reads a shard from rd, an already open file (name names it in errors), and checks
// its header. Close does not close rd.
func NewShardReader(name string, rd io.Reader) (*ShardReader, error) { return newShardReader(name, rd) }

func newShardReader(name string, rd io.Reader) (*ShardReader, error) {
	r := &ShardReader{name: name, rd: bufio.NewReaderSize(rd, 64<<10)}
	h := make([]byte, headerSize)
	if n, err := io.ReadFull(r.rd, h); err != nil {
		if n == 0 && err == io.EOF {
			return nil, r.corrupt(0, ErrTruncated, "empty file")
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, r.corrupt(0, ErrTruncated, fmt.Sprintf("%d of %d header bytes", n, headerSize))
		}
		return nil, fmt.Errorf("datasets: %s: %w", name, err)
	}
	switch {
	case string(h[:8]) != shardMagic:
		return nil, r.corrupt(0, ErrCorrupt, "not a YINSH Zero shard (bad magic)")
	case binary.LittleEndian.Uint16(h[8:]) != shardVersion:
		return nil, r.corrupt(0, ErrCorrupt, fmt.Sprintf("format version %d, this build reads %d", binary.LittleEndian.Uint16(h[8:]), shardVersion))
	case h[10] != compressionZstd:
		return nil, r.corrupt(0, ErrCorrupt, fmt.Sprintf("unknown compression %d", h[10]))
	case !bytes.Equal(h[11:], make([]byte, 5)):
		return nil, r.corrupt(0, ErrCorrupt, "reserved header bytes are not zero")
	}
	r.off = headerSize
	return r, nil
}

func (r *ShardReader) corrupt(record int, kind error, reason string) error {
	off := r.off
	if record == 0 {
		off = 0
	}
	return &CorruptError{File: r.name, Record: record, Offset: off, Err: kind, Reason: reason}
}

// Records returns the number of records read so far.
func (r *ShardReader) Records() int { return r.n }

// Next returns the next record, or io.EOF after the end marker. A damaged or cut shard gives a
// *CorruptError (wrapping ErrCorrupt or ErrTruncated) naming the file, record number and offset.
func (r *ShardReader) Next() (*Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	rec, err := r.next()
	if err != nil {
		r.err = err
	}
	return rec, err
}

func (r *ShardReader) next() (*Record, error) {
	num := r.n + 1
	readFull := func(b []byte, what string) error {
		n, err := io.ReadFull(r.rd, b)
		switch {
		case err == nil:
			return nil
		case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
			return r.corrupt(num, ErrTruncated, fmt.Sprintf("file ends inside the %s (%d of %d bytes)", what, n, len(b)))
		}
		return fmt.Errorf("datasets: %s: %w", r.name, err)
	}
	tag, err := r.rd.ReadByte()
	if err == io.EOF {
		return nil, r.corrupt(num, ErrTruncated, fmt.Sprintf("file ends after %d records without the end marker", r.n))
	} else if err != nil {
		return nil, fmt.Errorf("datasets: %s: %w", r.name, err)
	}
	switch tag {
	case 'E':
		e := make([]byte, endSize)
		e[0] = tag
		if err := readFull(e[1:], "end marker"); err != nil {
			return nil, err
		}
		if binary.LittleEndian.Uint32(e[5:]) != crc32.Checksum(e[:5], castagnoli) {
			return nil, r.corrupt(num, ErrCorrupt, "end marker checksum mismatch")
		}
		if c := binary.LittleEndian.Uint32(e[1:]); int64(c) != int64(r.n) {
			return nil, r.corrupt(num, ErrCorrupt, fmt.Sprintf("end marker counts %d records, read %d", c, r.n))
		}
		if _, err := r.rd.ReadByte(); err == nil {
			return nil, r.corrupt(num, ErrCorrupt, "data after the end marker")
		} else if err != io.EOF {
			return nil, fmt.Errorf("datasets: %s: %w", r.name, err)
		}
		return nil, io.EOF
	case 'R':
	default:
		return nil, r.corrupt(num, ErrCorrupt, fmt.Sprintf("unknown frame tag 0x%02x", tag))
	}
	h := make([]byte, frameHeaderSize)
	h[0] = tag
	if err := readFull(h[1:], "frame header"); err != nil {
		return nil, err
	}
	if binary.LittleEndian.Uint32(h[9:]) != crc32.Checksum(h[:9], castagnoli) {
		return nil, r.corrupt(num, ErrCorrupt, "frame header checksum mismatch")
	}
	size := binary.LittleEndian.Uint32(h[1:])
	if size > maxPayloadBytes {
		return nil, r.corrupt(num, ErrCorrupt, fmt.Sprintf("frame of %d bytes exceeds the limit", size))
	}
	payload := make([]byte, size)
	if err := readFull(payload, "record"); err != nil {
		return nil, err
	}
	if binary.LittleEndian.Uint32(h[5:]) != crc32.Checksum(payload, castagnoli) {
		return nil, r.corrupt(num, ErrCorrupt, "record checksum mismatch")
	}
	raw, err := zstdDecoder().DecodeAll(payload, nil)
	if err != nil {
		return nil, r.corrupt(num, ErrCorrupt, "decompress: "+err.Error())
	}
	rec, err := decodeRecord(raw)
	if err != nil {
		return nil, r.corrupt(num, ErrCorrupt, "decode: "+err.Error())
	}
	r.off += frameHeaderSize + int64(size)
	r.n++
	return rec, nil
}

// Close closes the file.
func (r *ShardReader) Close() error {
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}

// ReadShard reads every record of a finished shard; any damage is an error (no partial result).
func ReadShard(path string) ([]*Record, error) {
	r, err := OpenShard(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return readAll(r)
}

func readAll(r *ShardReader) ([]*Record, error) {
	var out []*Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
}
