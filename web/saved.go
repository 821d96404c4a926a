package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/internal/atomicfile"
)

// Games on disk (Options.GamesDir): each game is one file, DIR/ID.json, rewritten atomically after
// every change, so that a restarted server resumes the games its pages link to. A game not in
// memory is read on its first request; at most Options.SavedGames files are kept, the least
// recently changed removed first. A file that does not read (not JSON, a foreign format, an
// illegal action) is skipped with a log line: its game is a 404, never a panic.

// DefaultSavedGames bounds the game files of Options.GamesDir.
const DefaultSavedGames = 1000

// savedFormat names the file format; a file of another is not read.
const savedFormat = "yinsh-serve-game/1"

// maxSavedBytes bounds a game file read back (a game of maxMoves actions is far below it).
const maxSavedBytes = 1 << 20

var gameIDPattern = regexp.MustCompile(`^[0-9a-f]{24}$`)

// savedGame is a game's file.
type savedGame struct {
	Format    string     `json:"format"`
	ID        string     `json:"id"`
	Variant   string     `json:"variant"`
	You       string     `json:"you"`
	Player    string     `json:"player"`
	Moves     []string   `json:"moves"`
	Started   time.Time  `json:"started"`
	Used      time.Time  `json:"used"`
	Resigned  bool       `json:"resigned,omitempty"`
	AgentView *agentView `json:"agent_view,omitempty"`
	Clock     *clockFile `json:"clock,omitempty"`
}

// gameFiles is the directory of saved games.
type gameFiles struct {
	dir  string
	max  int
	mu   sync.Mutex // one eviction at a time
	load sync.Mutex // one game read back at a time (a request that waited finds it loaded)
}

func (gf *gameFiles) path(id string) string { return filepath.Join(gf.dir, id+".json") }

// save writes g's file (g.mu held).
func (gf *gameFiles) save(g *game) error {
	sg := savedGame{Format: savedFormat, ID: g.id, Variant: g.variant.String(), You: colorName(g.human), Player: g.player,
		Moves: tokensOf(g.moves), Started: g.started.UTC(), Used: g.used.UTC(), Resigned: g.resign, AgentView: g.view,
		Clock: g.clock.file()}
	data, err := json.Marshal(sg)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(gf.path(g.id), data)
}

func (gf *gameFiles) remove(id string) {
	if gameIDPattern.MatchString(id) {
		os.Remove(gf.path(id))
	}
}

// evict removes the least recently changed files past the bound.
func (gf *gameFiles) evict() error {
	gf.mu.Lock()
	defer gf.mu.Unlock()
	ents, err := os.ReadDir(gf.dir)
	if err != nil {
		return err
	}
	type file struct {
		name string
		mod  time.Time
	}
	var files []file
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !gameIDPattern.MatchString(id) || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		files = append(files, file{e.Name(), fi.ModTime()})
	}
	if len(files) <= gf.max {
		return nil
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod.Before(files[j].mod) })
	for _, f := range files[:len(files)-gf.max] {
		if err := os.Remove(filepath.Join(gf.dir, f.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// read reads back the file of game id: nil and no error when there is none; an error saying what
// is wrong with a file that does not read.
func (gf *gameFiles) read(id string) (*savedGame, *env.State, []env.State, []env.Action, error) {
	// a regular file only: not a link (to anything, in the directory or out of it), not a FIFO (whose
	// open would wait for a writer) or a directory, checked before the open and again on what was
	// opened, in case another file took its place in between
	pre, err := os.Lstat(gf.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if !pre.Mode().IsRegular() {
		return nil, nil, nil, nil, fmt.Errorf("not a regular file (%s)", pre.Mode().Type())
	}
	f, err := os.OpenFile(gf.path(id), os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || !os.SameFile(pre, fi) {
		return nil, nil, nil, nil, fmt.Errorf("not a regular file, or replaced while it was opened")
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSavedBytes+1))
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if len(data) > maxSavedBytes {
		return nil, nil, nil, nil, fmt.Errorf("larger than %d bytes", maxSavedBytes)
	}
	var sg savedGame
	if err := json.Unmarshal(data, &sg); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("not a game file: %v", err)
	}
	if sg.Format != savedFormat {
		return nil, nil, nil, nil, fmt.Errorf("format %q, want %q", sg.Format, savedFormat)
	}
	if sg.ID != id {
		return nil, nil, nil, nil, fmt.Errorf("id %q in the file of game %s", sg.ID, id)
	}
	v, err := env.ParseVariant(sg.Variant)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("variant %q", sg.Variant)
	}
	if sg.You != "w" && sg.You != "b" {
		return nil, nil, nil, nil, fmt.Errorf("you %q: want w or b", sg.You)
	}
	if len(sg.Moves) > maxMoves {
		return nil, nil, nil, nil, fmt.Errorf("%d moves: at most %d", len(sg.Moves), maxMoves)
	}
	st := env.NewState(v)
	hist := make([]env.State, 0, len(sg.Moves))
	moves := make([]env.Action, 0, len(sg.Moves))
	for i, tok := range sg.Moves {
		a, err := env.ParseAction(tok)
		prev := *st
		if err == nil {
			err = st.ApplyAction(a)
		}
		if err != nil {
			return nil, nil, nil, nil, fmt.Errorf("move %d %q: %s", i+1, tok, tidy(err.Error()))
		}
		hist, moves = append(hist, prev), append(moves, a)
	}
	return &sg, st, hist, moves, nil
}

// loadGame reads game id back from Options.GamesDir into the store with a new agent: nil when the
// server keeps no such file, or its file does not read (logged).
func (s *Server) loadGame(id string) *game {
	gf := s.files
	if gf == nil || !gameIDPattern.MatchString(id) {
		return nil
	}
	gf.load.Lock()
	defer gf.load.Unlock()
	if g, err := s.games.get(id); err == nil { // read back while this request waited
		return g
	}
	sg, st, hist, moves, err := gf.read(id)
	if err != nil {
		s.log.Warn("skipping a saved game that does not read", "file", gf.path(id), "err", err)
		return nil
	}
	if sg == nil {
		return nil
	}
	spec := sg.Player
	if _, err := s.opponent(spec); err != nil || spec == "" {
		s.log.Warn("a saved game's player is not offered any more: the server's player takes it on", "game", id, "player", sg.Player, "now", s.opts.Player)
		spec = s.opts.Player
	}
	human := env.White
	if sg.You == "b" {
		human = env.Black
	}
	g := &game{id: id, variant: st.Variant(), human: human, player: spec, state: *st, history: hist, moves: moves,
		started: sg.Started, used: time.Now(), view: sg.AgentView, resign: sg.Resigned, now: s.now}
	if sg.Clock != nil {
		c, err := sg.Clock.clock()
		if err != nil {
			s.log.Warn("skipping a saved game that does not read", "file", gf.path(id), "err", err)
			return nil
		}
		g.clock = c
	}
	if err := s.checkVariantOf(spec, s.nameOf(spec), g.variant, "play"); err != nil {
		s.log.Warn("skipping a saved game this server does not play", "game", id, "err", err)
		return nil
	}
	factory, err := s.factoryFor(spec, g.variant)
	if err != nil {
		s.log.Warn("skipping a saved game whose agent does not open", "game", id, "err", err)
		return nil
	}
	g.mu.Lock() // until its agent is made: no request on it before
	defer g.mu.Unlock()
	seq, err := s.games.put(g)
	if err != nil {
		s.log.Warn("cannot take back a saved game", "game", id, "err", err)
		return nil
	}
	agent, err := factory(s.opts.Seed + seq)
	if err != nil {
		s.games.remove(id)
		s.log.Warn("skipping a saved game whose agent does not open", "game", id, "err", err)
		return nil
	}
	g.agent = agent
	g.resync()
	s.log.Info("saved game read back", "game", id, "moves", len(moves))
	return g
}
