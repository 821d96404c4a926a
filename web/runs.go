package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/env"
)

type runSummary struct {
	Name        string `json:"name"`
	Generations int    `json:"generations"` // lines of metrics.jsonl
	Shards      int    `json:"shards"`      // finished shards
	Live        int    `json:"live"`        // shards being written
	SGF         int    `json:"sgf"`
	Modified    string `json:"modified"`
}

func (s *Server) handleRuns(w http.ResponseWriter, r *http.Request) {
	if s.runs == nil {
		writeJSON(w, http.StatusOK, map[string]any{"runs": []runSummary{}, "dir": ""})
		return
	}
	entries, err := os.ReadDir(s.runs.root)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // without the directory's path
		}
		writeError(w, http.StatusInternalServerError, "cannot list the runs directory: %v", err)
		return
	}
	out := []runSummary{}
	names := make([]string, 0, len(entries)+1)
	if s.runs.self != "" {
		names = append(names, s.runs.self)
	}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for i, name := range names {
		if !safeName.MatchString(name) || s.runs.self != "" && i > 0 && name == "games" {
			continue // the run's own games directory is not a run of its own
		}
		path := filepath.Join(s.runs.root, name)
		if i == 0 && s.runs.self != "" {
			path = s.runs.root
		}
		dir, ok := s.runs.within(path)
		if !ok {
			continue
		}
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() {
			continue
		}
		sum := runSummary{Name: name, Modified: fi.ModTime().UTC().Format("2006-01-02T15:04:05Z")}
		sum.Generations = s.runs.countLines(r.Context(), filepath.Join(dir, "metrics.jsonl"))
		for _, sh := range s.shardFiles(dir) {
			if sh.live {
				sum.Live++
			} else {
				sum.Shards++
			}
		}
		sum.SGF = len(s.sgfFiles(dir))
		if sum.Generations == 0 && sum.Shards == 0 && sum.Live == 0 && sum.SGF == 0 {
			continue // not a run
		}
		out = append(out, sum)
	}
	writeJSON(w, http.StatusOK, map[string]any{"runs": out})
}

// countLines counts the lines of a metrics file (in its first maxMetricsBytes); one that is not
// read (missing, a link out of the runs directory, not a regular file) has none.
func (rd *runsDir) countLines(ctx context.Context, path string) int {
	f, err := rd.open(ctx, path, maxMetricsBytes)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			n++
		}
	}
	return n
}

// readMetrics returns the complete JSON lines of a metrics file from byte offset on, and the offset
// after the last complete line (a line being written is left for the next read). A file shorter
// than offset was rewritten (a resumed run drops unfinished lines): it is read from the start and
// reset is true. A missing file has no lines; one that is not read (a link out of the runs
// directory, not a regular file) is a *fileError.
func (rd *runsDir) readMetrics(ctx context.Context, path string, offset int64) (lines []json.RawMessage, next int64, reset bool, err error) {
	f, err := rd.open(ctx, path, maxMetricsBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, 0, offset > 0, nil
		}
		return nil, offset, false, err
	}
	defer f.Close()
	if f.info.Size() < offset {
		offset, reset = 0, true
	}
	if _, err := f.f.Seek(offset, io.SeekStart); err != nil {
		return nil, offset, reset, &fileError{f.rel, err}
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, offset, reset, err
	}
	end := bytes.LastIndexByte(data, '\n')
	if end < 0 {
		return nil, offset, reset, nil
	}
	for _, l := range bytes.Split(data[:end], []byte{'\n'}) {
		l = bytes.TrimSpace(l)
		if len(l) > 0 && json.Valid(l) {
			lines = append(lines, json.RawMessage(bytes.Clone(l)))
		}
	}
	return lines, offset + int64(end) + 1, reset, nil
}

func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	dir, err := s.run(r)
	if err != nil {
		fail(w, err)
		return
	}
	lines, _, _, err := s.runs.readMetrics(r.Context(), filepath.Join(dir, "metrics.jsonl"), 0)
	if err != nil {
		fail(w, fileStatus(err))
		return
	}
	if lines == nil {
		lines = []json.RawMessage{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"run": r.PathValue("run"), "metrics": lines})
}

// shardFile is a shard of a run: finished, or being written (a temporary file of the shard writer,
// whose complete records are readable).
type shardFile struct {
	sub, name string // the subdirectory ("" or games or expert) and the file name
	live      bool
}

// isShard reports whether name is a finished shard's (datasets.ParseShardName: the names the
// shard readers read, no others).
func isShard(name string) bool {
	_, ok := datasets.ParseShardName(name)
	return ok
}

// shardDirs are where a run's shards are: games/ of a training run, the directory itself of
// datasets generate or selfplay --out.
var shardDirs = []string{"games", ""}

func (s *Server) shardFiles(dir string) []shardFile {
	var out []shardFile
	for _, sub := range shardDirs {
		d := filepath.Join(dir, sub)
		if _, ok := s.runs.within(d); !ok {
			continue
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			n := e.Name()
			if !e.Type().IsRegular() {
				continue
			}
			switch {
			case isShard(n):
				out = append(out, shardFile{sub: sub, name: n})
			case datasets.IsTempShard(n):
				out = append(out, shardFile{sub: sub, name: n, live: true})
			}
		}
	}
	return out
}

func (s *Server) sgfFiles(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.EqualFold(filepath.Ext(e.Name()), ".sgf") && safeName.MatchString(e.Name()) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// gameSummary is one game of a run's listing.
type gameSummary struct {
	Shard     string `json:"shard"` // "games~shard-000001.yz": the shard under the run, "~" for "/"
	Index     int    `json:"index"`
	ID        string `json:"id"`
	Generator string `json:"generator"`
	Variant   string `json:"variant"`
	Result    string `json:"result"`
	Length    int    `json:"length"`
	Live      bool   `json:"live"` // from a shard still being written
}

// maxListedGames bounds a run's game listing (the latest games are kept).
const maxListedGames = 5000

// readShardGames reads the complete records of a shard (all of a finished one, or an error and
// none; those written so far of one in progress) and returns the information of the file read.
// A shard that is not read (see runsDir.open) or is larger than maxShardBytes is an error, as is a
// read cut short (see transient).
func (rd *runsDir) readShardGames(ctx context.Context, path string, live bool, fn func(i int, r *datasets.Record)) (os.FileInfo, error) {
	f, err := rd.open(ctx, path, maxShardBytes)
	if err != nil {
		if live && errors.Is(err, fs.ErrNotExist) {
			return nil, nil // renamed meanwhile
		}
		return nil, err
	}
	defer f.Close()
	if !live {
		if err := f.tooLarge(); err != nil {
			return f.info, err
		}
	}
	sr, err := datasets.NewShardReader(f.rel, f)
	if err != nil {
		if live && !transient(err) {
			return f.info, nil // no header yet
		}
		return f.info, err
	}
	if !live {
		var recs []*datasets.Record
		for {
			r, err := sr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return f.info, err
			}
			recs = append(recs, r)
		}
		for i, r := range recs {
			fn(i, r)
		}
		return f.info, nil
	}
	for i := 0; ; i++ {
		r, err := sr.Next()
		if err != nil {
			if transient(err) {
				return f.info, err
			}
			return f.info, nil // the end of what was written so far
		}
		fn(i, r)
	}
}

// runGames lists the games of a run's shards, reading only the shards that changed since they were
// last read (see shardCache).
func (s *Server) runGames(ctx context.Context, dir string) ([]gameSummary, int) {
	var games []gameSummary
	shards := 0
	seen := map[string]bool{}
	cache := &s.runs.cache
	for _, sh := range s.shardFiles(dir) {
		path, fi, err := s.runs.stat(filepath.Join(dir, sh.sub, sh.name))
		if err != nil {
			continue // renamed meanwhile (a finished shard): the next listing has it
		}
		shards++
		seen[path] = true
		found, hit := cache.get(path, fi)
		if !hit {
			name := sh.name
			if sh.sub != "" {
				name = sh.sub + "~" + sh.name
			}
			found = nil
			read, err := s.runs.readShardGames(ctx, path, sh.live, func(i int, r *datasets.Record) {
				found = append(found, gameSummary{Shard: name, Index: i, ID: strconv.FormatUint(r.ID, 10), Generator: r.Generator,
					Variant: r.Variant.String(), Result: resultName(r.Outcome), Length: len(r.Actions), Live: sh.live})
			})
			switch {
			case transient(err):
				continue // cut short: not cached, the next listing reads it
			case read == nil:
				continue // renamed meanwhile
			}
			// a shard that does not read is listed without games (until it changes)
			cache.put(path, read, found)
		}
		games = append(games, found...)
	}
	if listHook != nil {
		listHook()
	}
	cache.prune(dir, seen)
	if len(games) > maxListedGames {
		games = games[len(games)-maxListedGames:]
	}
	return games, shards
}

// listHook, when set by a test, is called by runGames between reading the shards and pruning the
// cache: where another lister can run meanwhile.
var listHook func()

func (s *Server) handleRunGames(w http.ResponseWriter, r *http.Request) {
	dir, err := s.run(r)
	if err != nil {
		fail(w, err)
		return
	}
	games, shards := s.runGames(r.Context(), dir)
	if games == nil {
		games = []gameSummary{}
	}
	sgf := s.sgfFiles(dir)
	if sgf == nil {
		sgf = []string{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"run": r.PathValue("run"), "shards": shards, "games": games, "sgf": sgf})
}

type recordAnswer struct {
	replayAnswer
	Generator string `json:"generator"`
	ID        string `json:"id"`
	Recorded  string `json:"recorded_result"` // the record's result (adjudications included)
	// Targets has one entry per move of a record (none for an SGF file): targets[i] is what the
	// record holds for the position plies[i], before moves[i].
	Targets []plyTarget `json:"targets,omitempty"`
	// ValueQMix is the run's training.value_q_mix (its config.yaml): the share of the root value in
	// the value target; absent when the run has no config.yaml that reads, and for an SGF file.
	ValueQMix *float64 `json:"value_q_mix,omitempty"`
}

// plyTarget is the training target of one position of a record (datasets.Target), every value from
// the view of Side, the side to act there: Policy is the search's policy target (empty when the
// position is not a training target: a fast search of playout-cap randomisation, a forced action),
// RootWDL the search's root [win, draw, loss] (null when unknown, as in imports), Z the game's
// recorded outcome (1 win, 0 draw, -1 loss; null for an unfinished game). The trainer's value target
// is (1-m)·z + m·q with q = win - loss of RootWDL and m the run's value_q_mix (z alone without a
// root value).
type plyTarget struct {
	Side    string       `json:"side"`
	Policy  []policyProb `json:"policy"`
	RootWDL *[3]float32  `json:"root_wdl"`
	Z       *float32     `json:"z"`
}

type policyProb struct {
	Action string  `json:"action"`
	Prob   float32 `json:"prob"`
}

// targetsOf returns the targets of a record whose positions are l's.
func targetsOf(rec *datasets.Record, l *line) []plyTarget {
	out := make([]plyTarget, len(rec.Targets))
	for i := range rec.Targets {
		t := &rec.Targets[i]
		side := l.states[i].CurrentPlayer()
		pt := plyTarget{Side: colorName(side), Policy: make([]policyProb, len(t.Policy))}
		for k, e := range t.Policy {
			pt.Policy[k] = policyProb{Action: env.Action(e.Action).String(), Prob: e.Prob}
		}
		if w := t.RootWDL; w[0]+w[1]+w[2] > 0.5 { // all zero: unknown (the replay window's test too)
			pt.RootWDL = &w
		}
		if rec.Outcome != env.Ongoing {
			v := datasets.ValueFor(rec.Outcome, side)
			z := v[0] - v[2]
			pt.Z = &z
		}
		out[i] = pt
	}
	return out
}

// maxConfigBytes bounds what is read of a run's config.yaml.
const maxConfigBytes = 1 << 20

// valueQMix returns training.value_q_mix of the run's config.yaml, or nil when the run has none
// that reads (a directory of datasets generate, a link out of the runs directory, bad YAML).
func (rd *runsDir) valueQMix(ctx context.Context, dir string) *float64 {
	f, err := rd.open(ctx, filepath.Join(dir, "config.yaml"), maxConfigBytes)
	if err != nil {
		return nil
	}
	defer f.Close()
	var cfg struct {
		Training struct {
			ValueQMix *float64 `yaml:"value_q_mix"`
		} `yaml:"training"`
	}
	if err := yaml.NewDecoder(f).Decode(&cfg); err != nil {
		return nil
	}
	if m := cfg.Training.ValueQMix; m == nil || !(*m >= 0 && *m <= 1) {
		return nil
	}
	return cfg.Training.ValueQMix
}

// handleRunGame answers one game of a shard: {shard} is a shard file name, or games~NAME for a
// shard under games/ (a path element cannot hold a slash).
func (s *Server) handleRunGame(w http.ResponseWriter, r *http.Request) {
	dir, err := s.run(r)
	if err != nil {
		fail(w, err)
		return
	}
	shard := r.PathValue("shard")
	elems := []string{r.PathValue("run"), shard}
	if sub, name, ok := strings.Cut(shard, "~"); ok {
		elems = []string{r.PathValue("run"), sub, name}
	}
	path, err := s.runs.resolve(elems...)
	if err != nil {
		fail(w, err)
		return
	}
	base := filepath.Base(path)
	live := datasets.IsTempShard(base)
	if !live && !isShard(base) {
		writeError(w, http.StatusNotFound, "%q is not a shard", shard)
		return
	}
	idx, err := strconv.Atoi(r.PathValue("index"))
	if err != nil || idx < 0 {
		writeError(w, http.StatusBadRequest, "index %q: want a game number from 0", r.PathValue("index"))
		return
	}
	var rec *datasets.Record
	if _, err := s.runs.readShardGames(r.Context(), path, live, func(i int, r *datasets.Record) {
		if i == idx {
			rec = r
		}
	}); err != nil {
		fail(w, fileStatus(err))
		return
	}
	if rec == nil {
		writeError(w, http.StatusNotFound, "shard %s has no game %d", shard, idx)
		return
	}
	l, err := replayTokens("", tokensOf(rec.Actions), rec.Variant)
	if err != nil {
		fail(w, errorf(http.StatusUnprocessableEntity, "game %d of %s does not replay: %v", idx, shard, err))
		return
	}
	writeJSON(w, http.StatusOK, recordAnswer{replayAnswer: replayOf(l), Generator: rec.Generator,
		ID: strconv.FormatUint(rec.ID, 10), Recorded: resultName(rec.Outcome), Targets: targetsOf(rec, l),
		ValueQMix: s.runs.valueQMix(r.Context(), dir)})
}

func (s *Server) handleRunSGF(w http.ResponseWriter, r *http.Request) {
	if _, err := s.run(r); err != nil {
		fail(w, err)
		return
	}
	path, err := s.runs.resolve(r.PathValue("run"), r.PathValue("file"))
	if err != nil {
		fail(w, err)
		return
	}
	if !strings.EqualFold(filepath.Ext(path), ".sgf") {
		writeError(w, http.StatusNotFound, "%q is not an SGF file", r.PathValue("file"))
		return
	}
	f, err := s.runs.open(r.Context(), path, maxSGFBytes)
	if err == nil {
		err = f.tooLarge()
		defer f.Close()
	}
	if err != nil {
		fail(w, fileStatus(err))
		return
	}
	g, err := env.ReadSGF(f)
	if err != nil {
		if transient(err) {
			fail(w, fileStatus(err))
			return
		}
		fail(w, errorf(http.StatusUnprocessableEntity, "%s: %s", r.PathValue("file"), tidy(err.Error())))
		return
	}
	l, err := replayTokens("", tokensOf(g.Actions), g.Variant)
	if err != nil {
		fail(w, errorf(http.StatusUnprocessableEntity, "%s", err))
		return
	}
	writeJSON(w, http.StatusOK, recordAnswer{replayAnswer: replayOf(l), Generator: "sgf:" + r.PathValue("file"),
		Recorded: resultName(g.Outcome())})
}
