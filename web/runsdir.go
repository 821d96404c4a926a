package web

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/yinsh-zero/yinsh/datasets"
)

// runsDir is the --runs directory. Every name a request gives (a run, a shard, an SGF file) must be
// one plain path element, and what it names must resolve, symbolic links followed, inside the
// directory: no request reads anything else.
type runsDir struct {
	root string // absolute, symbolic links resolved
	// self is the name of the directory itself when it is a run (--runs runs/quickstart): it is
	// then listed as a run of that name, unless a subdirectory has the name
	self string

	cache shardCache // the games of the shards listed so far
}

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
	rd := &runsDir{root: real}
	if base := filepath.Base(real); safeName.MatchString(base) && isRun(real) {
		if _, err := os.Lstat(filepath.Join(real, base)); err != nil {
			rd.self = base
		}
	}
	return rd, nil
}

// isRun reports whether dir looks like a run: a metrics file or a games directory of shards.
func isRun(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "metrics.jsonl")); err == nil {
		return true
	}
	fi, err := os.Stat(filepath.Join(dir, "games"))
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

// within reports whether path, symbolic links resolved, lies inside root.
func (rd *runsDir) within(path string) (string, bool) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(rd.root, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return real, true
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
