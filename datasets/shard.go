package datasets

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Shard file layout, version 1 (little-endian):
//
//	header  16 bytes: magic "YZSHARD\x00", uint16 format version, uint8 compression (1 = zstd),
//	        5 zero bytes
//	record  frame per game: byte 'R', uint32 payload length, uint32 CRC-32C of the payload,
//	        uint32 CRC-32C of the 9 bytes before it (so a damaged length is caught as corruption,
//	        not misread as truncation); payload = one zstd frame holding the record encoding
//	        (see record.go)
//	end     byte 'E', uint32 record count, uint32 CRC-32C of those 5 bytes; nothing may follow
//
// A finished shard is named shard-NNNNNN.yz (six or more digits). Shards are written under a temporary
// name of package atomicfile's scheme (.shard-NNNNNN.yz.tmp-RANDOM; earlier builds wrote
// shard-NNNNNN.yz.RANDOM.tmp, which is still recognised and recovered) and renamed into place after the
// end marker is written and synced, so a file with the final name is always complete; readers ignore
// every other name. The end marker also
// makes a shard cut at a frame boundary detectable.
//
// Compression: github.com/klauspost/compress/zstd, one frame per record so that a damaged record is
// located exactly and a reader needs no state across records. Against stdlib gzip on the same records
// zstd is smaller and several times faster to decode (see BenchmarkCompress).
const (
	shardMagic      = "YZSHARD\x00"
	shardVersion    = 1
	compressionZstd = 1
	headerSize      = 16
	frameHeaderSize = 13
	endSize         = 9
	maxPayloadBytes = 64 << 20 // compressed bytes of one record frame
	maxDecodedBytes = 64 << 20 // decoded bytes of one record
	defaultPerShard = 1000
)

var (
	castagnoli = crc32.MakeTable(crc32.Castagnoli)
)

// ErrCorrupt and ErrTruncated are wrapped by the *CorruptError a reader returns.
var (
	ErrCorrupt   = errors.New("corrupt")
	ErrTruncated = errors.New("truncated")
)

// CorruptError says where a shard is damaged.
type CorruptError struct {
	File string
	// Record is the 1-based number of the frame being read (record count + 1 for the end marker),
	// 0 for the file header.
	Record int
	// Offset is the byte offset of that frame (or of the header) in the file.
	Offset int64
	Err    error // ErrCorrupt or ErrTruncated
	Reason string
}

func (e *CorruptError) Error() string {
	where := "header"
	if e.Record > 0 {
		where = fmt.Sprintf("record %d at byte %d", e.Record, e.Offset)
	}
	return fmt.Sprintf("datasets: %s: %s: %v: %s", e.File, where, e.Err, e.Reason)
}

func (e *CorruptError) Unwrap() error { return e.Err }

var (
	zencOnce sync.Once
	zenc     *zstd.Encoder
	zdecOnce sync.Once
	zdec     *zstd.Decoder
)

// zstdEncoder returns the shared encoder (EncodeAll is safe for concurrent use).
func zstdEncoder() *zstd.Encoder {
	zencOnce.Do(func() {
		var err error
		zenc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderCRC(false),
			zstd.WithEncoderConcurrency(1))
		if err != nil {
			panic(err) // only for invalid options
		}
	})
	return zenc
}

// zstdDecoder returns the shared decoder (DecodeAll is safe for concurrent use).
func zstdDecoder() *zstd.Decoder {
	zdecOnce.Do(func() {
		var err error
		zdec, err = zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxDecodedBytes), zstd.WithDecoderConcurrency(0))
		if err != nil {
			panic(err) // only for invalid options
		}
	})
	return zdec
}

// IsShard reports whether data (a file's first bytes, at least 8) begins like a shard file.
func IsShard(data []byte) bool { return bytes.HasPrefix(data, []byte(shardMagic)) }

func shardHeader() []byte {
	h := make([]byte, headerSize)
	copy(h, shardMagic)
	binary.LittleEndian.PutUint16(h[8:], shardVersion)
	h[10] = compressionZstd
	return h
}

// appendFrame appends the record frame holding the compressed payload.
func appendFrame(dst, payload []byte) []byte {
	start := len(dst)
	dst = append(dst, 'R')
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(payload)))
	dst = binary.LittleEndian.AppendUint32(dst, crc32.Checksum(payload, castagnoli))
	dst = binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], castagnoli))
	return append(dst, payload...)
}

func endFrame(count int) []byte {
	e := make([]byte, 0, endSize)
	e = append(e, 'E')
	e = binary.LittleEndian.AppendUint32(e, uint32(count))
	return binary.LittleEndian.AppendUint32(e, crc32.Checksum(e, castagnoli))
}

// encodeFrame validates the record's structure and returns its frame appended to dst.
func encodeFrame(dst []byte, r *Record) ([]byte, error) {
	if err := r.checkStructure(); err != nil {
		return dst, err
	}
	raw := appendRecord(nil, r)
	if len(raw) > maxDecodedBytes {
		return dst, fmt.Errorf("datasets: game %d: record of %d bytes is too large", r.ID, len(raw))
	}
	return appendFrame(dst, zstdEncoder().EncodeAll(raw, nil)), nil
}
