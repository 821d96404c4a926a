package cluster

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/yinsh-zero/yinsh/datasets"
)

// A game message (one per finished game, published on the run's games subject with the game's id as
// Nats-Msg-Id, MsgID):
//
//	magic    "YZG1"
//	uvarint  generation: the run's generation (RunInfo.Generation) whose network played the game
//	uvarint  length of the worker's name, then the name (UTF-8, at most maxWorkerName bytes)
//	rest     the game record (datasets.Record.MarshalBinary); its ID is the game id
const (
	gameMagic     = "YZG1"
	maxWorkerName = 128
	maxGeneration = 1 << 30
)

// Game is a finished game as a worker publishes it.
type Game struct {
	Generation int    // the run's generation whose network played it
	Worker     string // the worker that played it
	Record     *datasets.Record
}

// MsgID is the message id of game id (the record's ID): JetStream stores a message with an id
// already seen (within the stream's duplicate window) only once.
func MsgID(id uint64) string { return fmt.Sprintf("%016x", id) }

// EncodeGame returns the message of g.
func EncodeGame(g Game) ([]byte, error) {
	if g.Generation < 0 || g.Generation > maxGeneration {
		return nil, fmt.Errorf("cluster: game generation %d out of range", g.Generation)
	}
	if len(g.Worker) > maxWorkerName || !utf8.ValidString(g.Worker) {
		return nil, fmt.Errorf("cluster: worker name %q: want at most %d bytes of UTF-8", g.Worker, maxWorkerName)
	}
	rec, err := g.Record.MarshalBinary()
	if err != nil {
		return nil, err
	}
	b := append([]byte(gameMagic), binary.AppendUvarint(nil, uint64(g.Generation))...)
	b = binary.AppendUvarint(b, uint64(len(g.Worker)))
	b = append(b, g.Worker...)
	return append(b, rec...), nil
}

// ParseGame decodes a game message. It checks the framing and the record's structure, not the
// game's rules (datasets.Writer.Append replays it).
func ParseGame(b []byte) (Game, error) {
	var g Game
	if !bytes.HasPrefix(b, []byte(gameMagic)) {
		return g, errors.New("cluster: game message: not a game (bad magic)")
	}
	b = b[len(gameMagic):]
	gen, n := binary.Uvarint(b)
	if n <= 0 || gen > maxGeneration {
		return g, errors.New("cluster: game message: bad generation")
	}
	b = b[n:]
	wl, n := binary.Uvarint(b)
	if n <= 0 || wl > maxWorkerName || uint64(len(b)-n) < wl {
		return g, errors.New("cluster: game message: bad worker name length")
	}
	b = b[n:]
	w := string(b[:wl])
	if !utf8.ValidString(w) {
		return g, errors.New("cluster: game message: worker name is not UTF-8")
	}
	rec := &datasets.Record{}
	if err := rec.UnmarshalBinary(b[wl:]); err != nil {
		return g, fmt.Errorf("cluster: game message: %w", err)
	}
	return Game{Generation: int(gen), Worker: w, Record: rec}, nil
}

// RunInfo is the run KV's "run" key: what a worker needs to play the run's games. The trainer
// rewrites it when a generation's self-play starts.
type RunInfo struct {
	Format     int    `json:"format"` // 1
	Run        string `json:"run"`
	Generation int    `json:"generation"`         // the generation whose self-play games are wanted
	Network    string `json:"network"`            // object name of the network in the object store (gen-NNNN)
	SHA256     string `json:"sha256"`             // hex SHA-256 of the checkpoint file
	Size       int64  `json:"size"`               // bytes of the checkpoint file
	Config     string `json:"config"`             // the run's resolved config (YAML)
	Staleness  int    `json:"staleness"`          // games of generations older than Generation-Staleness are dropped
	Time       string `json:"time"`               // RFC 3339, when it was written
	Finished   bool   `json:"finished,omitempty"` // the run is over: workers stop
}

// Counters is the run KV's "counters" key: the trainer's ingest totals over the run's lifetime
// (restored from the KV when the trainer restarts).
type Counters struct {
	Ingested   int            `json:"ingested"`   // games appended to the shards
	Stale      int            `json:"stale"`      // games dropped: network older than the staleness allows
	Duplicates int            `json:"duplicates"` // games already in the shards (redelivered after a crash)
	Invalid    int            `json:"invalid"`    // messages that were not valid games
	ByWorker   map[string]int `json:"by_worker,omitempty"`
}

// Heartbeat is a worker's key in the run's workers bucket (expiring after the bucket's TTL).
type Heartbeat struct {
	Worker     string  `json:"worker"`
	Host       string  `json:"host"`
	PID        int     `json:"pid"`
	Parallel   int     `json:"parallel"`
	Generation int     `json:"generation"` // the generation of the network it plays with
	Games      int     `json:"games"`      // games published since it started
	Started    string  `json:"started"`    // RFC 3339
	Time       string  `json:"time"`       // RFC 3339
	GamesHour  float64 `json:"games_per_hour"`
}

const runInfoFormat = 1

// parseJSON decodes one JSON value strictly (unknown fields and trailing data are errors).
func parseJSON(b []byte, v any, what string) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("cluster: %s: %w", what, err)
	}
	if dec.More() {
		return fmt.Errorf("cluster: %s: data after the value", what)
	}
	return nil
}

// ParseRunInfo decodes the run key and checks it.
func ParseRunInfo(b []byte) (RunInfo, error) {
	var ri RunInfo
	if err := parseJSON(b, &ri, "run info"); err != nil {
		return ri, err
	}
	if ri.Format != runInfoFormat {
		return ri, fmt.Errorf("cluster: run info: format %d, this build reads %d", ri.Format, runInfoFormat)
	}
	if ri.Generation < 1 || ri.Generation > maxGeneration || ri.Network == "" || len(ri.SHA256) != 64 || ri.Size <= 0 || ri.Staleness < 0 {
		return ri, fmt.Errorf("cluster: run info: generation %d, network %q, sha256 %q, size %d, staleness %d: incomplete",
			ri.Generation, ri.Network, ri.SHA256, ri.Size, ri.Staleness)
	}
	return ri, nil
}
