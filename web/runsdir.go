package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/yinsh-zero/yinsh/datasets"
)

// runsDir is the --runs directory. Every name a request gives (a run, a shard, an SGF file) must be
// one plain path element, and what it names must resolve, symbolic links followed, inside the
// directory: no request reads anything else. Every file is read through open: a regular file
// inside the directory, opened once, read at most a limit and until a deadline.
type runsDir struct {
	root string // absolute, symbolic links resolved
	// dir is root opened: files are opened through it, so that an open cannot leave the directory
	// even when a link changes between the check and the open
	dir *os.Root
	// self is the name of the directory itself when it is a run (--runs runs/quickstart): it is
	// then listed as a run of that name, unless a subdirectory has the name
	self string
	// timeout bounds the reading of one file, a time.Duration (fileTimeout; tests change it)
	timeout atomic.Int64

	cache shardCache // the games of the shards listed so far
}

// Limits of what is read of a run's files.
const (
	maxMetricsBytes = 32 << 20 // of a metrics file at one read (a listing counts the lines of that much)
	maxSGFBytes     = 4 << 20
	maxShardBytes   = 1 << 30
	fileTimeout     = 30 * time.Second // to read one file
)

func openRuns(dir string) (*runsDir, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, errors.New("web: --runs " + dir + " is not a directory")
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, err
	}
	rd := &runsDir{root: real, dir: root}
	rd.timeout.Store(int64(fileTimeout))
	if base := filepath.Base(real); safeName.MatchString(base) && rd.isRun(real) {
		if _, err := os.Lstat(filepath.Join(real, base)); err != nil {
			rd.self = base
		}
	}
	return rd, nil
}

// Close closes the directory.
func (rd *runsDir) Close() error { return rd.dir.Close() }

// isRun reports whether dir looks like a run: a metrics file or a games directory of shards.
func (rd *runsDir) isRun(dir string) bool {
	if _, _, err := rd.stat(filepath.Join(dir, "metrics.jsonl")); err == nil {
		return true
	}
	g, ok := rd.within(filepath.Join(dir, "games"))
	if !ok {
		return false
	}
	fi, err := os.Stat(g)
	return err == nil && fi.IsDir()
}

// safeName matches the names a request may give: one path element of ordinary characters, not
// starting with a dot.
var safeName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._+-]{0,199}$`)

// safeElem reports whether a request may name e: a safe name, or a shard being written (whose
// temporary name starts with a dot; see datasets.IsTempShard).
func safeElem(e string) bool {
	return (safeName.MatchString(e) || datasets.IsTempShard(e)) && e != "." && e != ".."
}

// Why a file of the runs directory is not read (wrapped in a *fileError). A missing file wraps
// fs.ErrNotExist.
var (
	errOutside    = errors.New("outside the runs directory")
	errNotRegular = errors.New("not a regular file")
	errDeadline   = fmt.Errorf("read for longer than the deadline: %w", os.ErrDeadlineExceeded)
)

// fileError is an error of a file of the runs directory, named by its path under the directory
// (so that no answer shows where the directory is).
type fileError struct {
	rel string
	err error
}

func (e *fileError) Error() string { return e.rel + ": " + e.err.Error() }
func (e *fileError) Unwrap() error { return e.err }

// realPath returns path with its symbolic links resolved and its path under root, or a *fileError
// wrapping fs.ErrNotExist (it does not exist) or errOutside (it resolves outside root).
func (rd *runsDir) realPath(path string) (real, rel string, err error) {
	name := rd.relName(path)
	real, err = filepath.EvalSymlinks(path)
	if err != nil {
		return "", "", &fileError{name, fs.ErrNotExist}
	}
	rel, err = filepath.Rel(rd.root, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", "", &fileError{name, errOutside}
	}
	return real, rel, nil
}

// relName is path as it is named in errors: under root when it is, else its base name.
func (rd *runsDir) relName(path string) string {
	if rel, err := filepath.Rel(rd.root, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return filepath.Base(path)
}

// within reports whether path, symbolic links resolved, lies inside root.
func (rd *runsDir) within(path string) (string, bool) {
	real, _, err := rd.realPath(path)
	return real, err == nil
}

// stat returns the resolved path and the information of a regular file inside root, without
// opening it; anything else is a *fileError (see realPath; errNotRegular: a directory, a FIFO, a
// device, a socket).
func (rd *runsDir) stat(path string) (string, os.FileInfo, error) {
	real, rel, err := rd.realPath(path)
	if err != nil {
		return "", nil, err
	}
	fi, err := os.Lstat(real) // real has no link left
	if err != nil {
		return "", nil, &fileError{filepath.ToSlash(rel), fs.ErrNotExist}
	}
	if !fi.Mode().IsRegular() {
		return "", nil, &fileError{filepath.ToSlash(rel), errNotRegular}
	}
	return real, fi, nil
}

// runFile is a file of the runs directory open for reading: a regular file inside it, of which at
// most a limit is read, until a deadline and while the request's context lasts.
type runFile struct {
	f        *os.File
	info     os.FileInfo // of the open file
	path     string      // resolved
	rel      string      // under the runs directory, for messages
	ctx      context.Context
	deadline time.Time
	left     int64 // bytes that may still be read
	limit    int64
}

// open opens path (under root, links allowed that stay inside) for reading at most limit bytes.
// Only a regular file inside root is opened: a link out of root, a FIFO (opened without blocking,
// then refused), a device or a directory is a *fileError, as is a missing file (fs.ErrNotExist).
func (rd *runsDir) open(ctx context.Context, path string, limit int64) (*runFile, error) {
	real, _, err := rd.stat(path) // refuses what is not a regular file before opening it
	if err != nil {
		return nil, err
	}
	rel, _ := filepath.Rel(rd.root, real)
	name := filepath.ToSlash(rel)
	// through the root, which refuses any link out of it that appeared since the check; without
	// blocking, in case a FIFO took the file's place
	f, err := rd.dir.OpenFile(rel, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &fileError{name, fs.ErrNotExist}
		}
		return nil, &fileError{name, errOutside}
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, &fileError{name, errNotRegular}
	}
	return &runFile{f: f, info: fi, path: real, rel: name, ctx: ctx, deadline: time.Now().Add(time.Duration(rd.timeout.Load())), left: limit, limit: limit}, nil
}

// Read reads the file, up to its limit (then io.EOF), until its deadline, while its context lasts.
func (f *runFile) Read(p []byte) (int, error) {
	if err := f.ctx.Err(); err != nil {
		return 0, err
	}
	if time.Now().After(f.deadline) {
		return 0, &fileError{f.rel, errDeadline}
	}
	if f.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > f.left {
		p = p[:f.left]
	}
	n, err := f.f.Read(p)
	f.left -= int64(n)
	return n, err
}

// tooLarge reports whether the file is larger than its limit (a whole file that cannot be read).
func (f *runFile) tooLarge() error {
	if f.info.Size() > f.limit {
		return &fileError{f.rel, fmt.Errorf("%d bytes, more than the %d this server reads", f.info.Size(), f.limit)}
	}
	return nil
}

func (f *runFile) Close() error { return f.f.Close() }

// transient reports whether err ended a read early (the request's context, a file's deadline)
// rather than saying what the file holds.
func transient(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded)
}

// fileStatus is the answer to a file that is not read: 404 for a missing one and one outside the
// runs directory (the same answer, so a client learns nothing about what lies outside), 404 for one
// that is not a regular file, 503 for a read cut short, 422 for one that does not read.
func fileStatus(err error) error {
	var fe *fileError
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, errOutside):
		name := "?"
		if errors.As(err, &fe) {
			name = fe.rel
		}
		return errorf(http.StatusNotFound, "no such run or file %q", name)
	case errors.Is(err, errNotRegular):
		return errorf(http.StatusNotFound, "%s", err)
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return errorf(http.StatusServiceUnavailable, "the request ended before the file was read")
	case errors.Is(err, os.ErrDeadlineExceeded):
		return errorf(http.StatusServiceUnavailable, "%s", tidy(err.Error()))
	}
	return errorf(http.StatusUnprocessableEntity, "%s", tidy(err.Error()))
}

// resolve returns the path of elems under root (each a safe name) when it exists inside root; a
// name that is not safe, escapes or does not exist is a 404 (the same answer, so a client learns
// nothing about what lies outside).
func (rd *runsDir) resolve(elems ...string) (string, error) {
	p := rd.root
	if len(elems) > 0 && rd.self != "" && elems[0] == rd.self {
		p, elems = rd.root, elems[1:] // the directory itself
		if len(elems) == 0 {
			return p, nil
		}
	}
	for _, e := range elems {
		if !safeElem(e) {
			return "", errorf(http.StatusNotFound, "no such run or file %q", strings.Join(elems, "/"))
		}
		p = filepath.Join(p, e)
	}
	real, ok := rd.within(p)
	if !ok {
		return "", errorf(http.StatusNotFound, "no such run or file %q", strings.Join(elems, "/"))
	}
	return real, nil
}

// run returns the directory of a run.
func (s *Server) run(r *http.Request) (string, error) {
	if s.runs == nil {
		return "", errorf(http.StatusNotFound, "the server was started without --runs")
	}
	dir, err := s.runs.resolve(r.PathValue("run"))
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", errorf(http.StatusNotFound, "no such run %q", r.PathValue("run"))
	}
	return dir, nil
}
