package datasets

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/yinsh-zero/yinsh/internal/atomicfile"
)

// Writing shards: games appended to a temporary shard, finalised into place every GamesPerShard
// games, and the temporary shards of a killed writer recovered.

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
