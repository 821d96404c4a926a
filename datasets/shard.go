package datasets

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/yinsh-zero/yinsh/internal/atomicfile"
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

// ListShards returns the finished shards of dir (temporary files excluded) in shard-number order.
func ListShards(dir string) ([]string, error) {
	nums, err := shardNumbers(dir)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(nums))
	for i, n := range nums {
		out[i] = filepath.Join(dir, ShardName(n))
	}
	return out, nil
}

func shardNumbers(dir string) ([]int, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	var nums []int
	for _, e := range ents {
		if n, ok := ParseShardName(e.Name()); ok && e.Type().IsRegular() {
			nums = append(nums, n)
		}
	}
	slices.Sort(nums)
	return nums, nil
}

// ScanDir calls fn for every record of every finished shard of dir, in order (index is the record's
// 0-based position in its shard). It stops at the first damaged shard or fn error.
func ScanDir(dir string, fn func(shard string, index int, r *Record) error) error {
	shards, err := ListShards(dir)
	if err != nil {
		return err
	}
	for _, path := range shards {
		if err := scanShard(path, fn); err != nil {
			return err
		}
	}
	return nil
}

func scanShard(path string, fn func(shard string, index int, r *Record) error) error {
	sr, err := OpenShard(path)
	if err != nil {
		return err
	}
	defer sr.Close()
	for i := 0; ; i++ {
		rec, err := sr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(path, i, rec); err != nil {
			return err
		}
	}
}

// ReadDir reads every record of every finished shard of dir, in order.
func ReadDir(dir string) ([]*Record, error) {
	var out []*Record
	err := ScanDir(dir, func(_ string, _ int, r *Record) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// RecordedIDs returns the IDs of the games in dir's finished shards: what a resumable writer of
// numbered, seeded games (self-play, expert games) checks before playing a game again.
func RecordedIDs(dir string) (map[uint64]bool, error) {
	ids := map[uint64]bool{}
	err := ScanDir(dir, func(_ string, _ int, r *Record) error {
		ids[r.ID] = true
		return nil
	})
	return ids, err
}

// WriterOptions configures a Writer.
type WriterOptions struct {
	// GamesPerShard is the number of games after which the shard is finalised and a new one begun
	// (default 1000). Games of the shard in progress are in a temporary file until then.
	GamesPerShard int
	// Recover turns leftover temporary shards (from a writer that was killed) into finished shards,
	// keeping every complete record and dropping a cut last one. Set it only when no other writer
	// uses the directory (e.g. when a run resumes); otherwise leftovers are logged and left alone.
	Recover bool
	// Logger receives shard finalisations and recoveries (default slog.Default()).
	Logger *slog.Logger
}

// Writer appends finished games to shards in one directory. Only one Writer may use a directory at a
// time. Append and Close are safe for concurrent use.
//
// Every Append hands the record to the operating system before it returns (one write call), so a
// killed process loses no appended game once its shard is finalised or recovered; finalisation
// syncs the file, renames it into place and syncs the directory.
type Writer struct {
	dir  string
	opts WriterOptions
	log  *slog.Logger

	mu       sync.Mutex
	next     int      // number the current shard will get
	f        *os.File // temp file of the shard in progress, nil when none
	tmp      string
	games    int // games in the shard in progress
	finished []string
	err      error // sticky write error
	closed   bool
}

// NewWriter opens dir (creating it) for appending. The first shard it finalises gets the number after
// the highest finished shard there.
func NewWriter(dir string, opts WriterOptions) (*Writer, error) {
	if opts.GamesPerShard <= 0 {
		opts.GamesPerShard = defaultPerShard
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	w := &Writer{dir: dir, opts: opts, log: log}
	nums, err := shardNumbers(dir)
	if err != nil {
		return nil, err
	}
	if len(nums) > 0 {
		w.next = nums[len(nums)-1] + 1
	}
	temps, err := TempShards(dir)
	if err != nil {
		return nil, err
	}
	if len(temps) > 0 && !opts.Recover {
		log.Warn("datasets: leftover temporary shards ignored (a writer was killed; set Recover to keep their games)",
			"dir", dir, "files", len(temps))
	}
	if opts.Recover {
		for _, t := range temps {
			if err := w.recoverTemp(t); err != nil {
				return nil, err
			}
		}
	}
	return w, nil
}

// TempShards returns the temporary shards of dir (see IsTempShard): those of a writer at work, or
// left by one that was killed (a Writer with Recover turns them into finished shards).
func TempShards(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	var out []string
	for _, e := range ents {
		if IsTempShard(e.Name()) && e.Type().IsRegular() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

// recoverTemp turns a leftover temporary shard into a finished one in place: it keeps the complete
// records, cuts the file after the last one, writes the end marker, syncs and renames it. Recovery is
// idempotent, so a writer killed while recovering recovers the same file again next time.
func (w *Writer) recoverTemp(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("datasets: recover: %w", err)
	}
	defer f.Close()
	r, err := newShardReader(path, f)
	if err != nil {
		w.log.Info("datasets: removing temporary shard without a complete header", "file", path)
		f.Close()
		return removeFile(path)
	}
	complete := false
	for {
		_, err := r.Next()
		if err == io.EOF {
			complete = true
			break
		}
		if err != nil {
			var ce *CorruptError
			if !errors.As(err, &ce) {
				return fmt.Errorf("datasets: recover: %w", err)
			}
			w.log.Info("datasets: recovery keeps the records before the damage", "file", path, "err", err)
			break
		}
	}
	if r.n == 0 {
		f.Close()
		return removeFile(path)
	}
	if !complete {
		if err := f.Truncate(r.off); err != nil {
			return fmt.Errorf("datasets: recover: %w", err)
		}
		if _, err := f.WriteAt(endFrame(r.n), r.off); err != nil {
			return fmt.Errorf("datasets: recover: %w", err)
		}
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("datasets: recover: %w", err)
	}
	f.Close()
	w.mu.Lock()
	defer w.mu.Unlock()
	final, err := w.install(path)
	if err != nil {
		return err
	}
	w.log.Info("datasets: recovered temporary shard", "from", path, "to", final, "games", r.n)
	return nil
}

func removeFile(path string) error {
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("datasets: %w", err)
	}
	return nil
}

// Append validates the record (Record.Validate: a full replay) and appends it to the shard in
// progress, finalising the shard when it holds GamesPerShard games.
func (w *Writer) Append(r *Record) error {
	if err := r.Validate(); err != nil {
		return err
	}
	frame, err := encodeFrame(nil, r)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errors.New("datasets: append to a closed writer")
	}
	if w.err != nil {
		return w.err
	}
	if w.f == nil {
		f, err := atomicfile.CreateTemp(w.dir, ShardName(w.next))
		if err != nil {
			return fmt.Errorf("datasets: %w", err)
		}
		if _, err := f.Write(shardHeader()); err != nil {
			f.Close()
			os.Remove(f.Name())
			return fmt.Errorf("datasets: %w", err)
		}
		w.f, w.tmp, w.games = f, f.Name(), 0
	}
	if _, err := w.f.Write(frame); err != nil {
		// The temp file may now end inside a frame: stop here, leave it for recovery.
		w.err = fmt.Errorf("datasets: %w", err) // an *os.PathError: it names the file
		w.f.Close()
		w.f = nil
		return w.err
	}
	w.games++
	if w.games >= w.opts.GamesPerShard {
		return w.finishLocked()
	}
	return nil
}

func (w *Writer) finish() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.finishLocked()
}

// finishLocked writes the end marker, syncs, and renames the shard in progress into place under the
// next free number (never replacing an existing file).
func (w *Writer) finishLocked() error {
	if w.f == nil {
		return w.err
	}
	f := w.f
	w.f = nil
	fail := func(err error) error {
		f.Close()
		w.err = fmt.Errorf("datasets: finalise %s: %w", w.tmp, err)
		return w.err
	}
	if _, err := f.Write(endFrame(w.games)); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	_, err := w.install(w.tmp)
	if err != nil {
		w.err = err
		return err
	}
	w.log.Debug("datasets: shard finalised", "file", w.finished[len(w.finished)-1], "games", w.games)
	return nil
}

// install renames a complete shard file into place under the next free number (never replacing an
// existing file) and syncs the directory. w.mu must be held.
func (w *Writer) install(tmp string) (string, error) {
	var final string
	for {
		final = filepath.Join(w.dir, ShardName(w.next))
		if _, err := os.Lstat(final); errors.Is(err, os.ErrNotExist) {
			break
		}
		w.next++
	}
	if err := os.Rename(tmp, final); err != nil {
		return "", fmt.Errorf("datasets: finalise %s: %w", tmp, err)
	}
	atomicfile.SyncDir(w.dir)
	w.next++
	w.finished = append(w.finished, final)
	return final, nil
}

// Sync makes every game appended so far durable (fsync of the shard in progress): a consumer that
// acknowledges games to their sender calls it before acknowledging.
func (w *Writer) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if w.f == nil {
		return nil // no shard in progress: finalised shards are synced
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("datasets: sync %s: %w", w.tmp, err)
	}
	return nil
}

// Shards returns the shards this writer has finalised, in order.
func (w *Writer) Shards() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.finished)
}

// Close finalises the shard in progress (if it holds any game). The writer cannot be used after.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return w.err
	}
	w.closed = true
	return w.finishLocked()
}
