package train

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ResultsFileName is the name of a run directory's match-results file; `yinsh ratings DIR` reads every
// results*.jsonl file in DIR.
const ResultsFileName = "results.jsonl"

// AppendResult appends one match result as a JSON line to path (created if missing), syncing it.
func AppendResult(path string, r Result) error { return appendJSONLine(path, r) }

// appendJSONLine appends v as one JSON line to path (creating it and its directory), and syncs it: a
// crash leaves at most a cut last line, which the readers skip.
func appendJSONLine(path string, v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadResults reads every results*.jsonl file in dir. A malformed line is an error naming the file and
// line, except a final line without its newline (a write cut short by a crash), which is skipped.
func ReadResults(dir string) ([]Result, error) { return ReadResultsNoting(dir, nil) }

// ReadResultsNoting is ReadResults that calls cut (when not nil) for each final line it skipped
// because it has no newline, with the file and the line's number (from 1), so that a command can say
// that a result was lost.
func ReadResultsNoting(dir string, cut func(file string, line int)) ([]Result, error) {
	files, err := filepath.Glob(filepath.Join(dir, "results*.jsonl"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, fmt.Errorf("no results*.jsonl files in %s", dir)
	}
	var out []Result
	for _, f := range files {
		rs, err := readResultsFileNoting(f, cut)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	return out, nil
}

// readResultsFile reads one results file (see ReadResults).
func readResultsFile(f string) ([]Result, error) { return readResultsFileNoting(f, nil) }

// readResultsFileNoting reads one results file (see ReadResultsNoting).
func readResultsFileNoting(f string, cut func(file string, line int)) ([]Result, error) {
	var out []Result
	data, err := os.ReadFile(f)
	if err != nil {
		return nil, err
	}
	text := string(data)
	complete := strings.HasSuffix(text, "\n")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, line := range lines {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var r Result
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil || r.A == "" || r.B == "" || r.Wins < 0 || r.Draws < 0 || r.Losses < 0 {
			if i == len(lines)-1 && !complete {
				if cut != nil {
					cut(f, i+1)
				}
				continue
			}
			if err == nil {
				err = fmt.Errorf("missing players or negative counts")
			}
			if strings.Contains(err.Error(), "unknown field") {
				err = fmt.Errorf("%v (not a results line, or written by a newer build)", err)
			}
			return nil, fmt.Errorf("%s: line %d: %v", f, i+1, err)
		}
		if r.Format > ResultsFormat {
			return nil, fmt.Errorf("%s: line %d: results format %d, this build reads up to %d (written by a newer build)", f, i+1, r.Format, ResultsFormat)
		}
		out = append(out, r)
	}
	return out, nil
}
