package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TrainerOptions configures the trainer's side.
type TrainerOptions struct {
	Conn ConnOptions
	Run  string // the run's name (RunName)
	// Fresh, for a new run, deletes what the server holds under the run's name (another run's
	// games and networks); a resumed run keeps them.
	Fresh bool
	// Staleness: games played by a network more than Staleness generations older than the
	// generation being filled are dropped (and counted).
	Staleness int
	// AckWait is how long a fetched game may stay unacknowledged before the server redelivers it
	// (default 30 s).
	AckWait time.Duration
	// MaxBacklog bounds the games waiting in the stream (0: no bound): beyond it the server refuses
	// new games and workers retry their publish, waiting for the trainer (backpressure).
	MaxBacklog int
	// HeartbeatTTL is how long a worker's heartbeat is kept (default 30 s).
	HeartbeatTTL time.Duration
	// Replicas is how many servers of a NATS cluster keep the run's stream, buckets and networks
	// (0: 1; at most 5, and no more than the cluster has). With 3, the run survives the loss of
	// any one server.
	Replicas int
	Log      *slog.Logger
}

// Trainer is the trainer's connection to a run: it publishes networks and ingests games.
type Trainer struct {
	o        TrainerOptions
	n        names
	nc       *nats.Conn
	js       jetstream.JetStream
	kv       jetstream.KeyValue
	obj      jetstream.ObjectStore
	cons     jetstream.Consumer
	info     RunInfo
	counters Counters
	log      *slog.Logger
}

// OpenTrainer connects and creates (or updates) the run's stream, consumer and buckets.
func OpenTrainer(ctx context.Context, o TrainerOptions) (*Trainer, error) {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.AckWait <= 0 {
		o.AckWait = 30 * time.Second
	}
	if o.HeartbeatTTL <= 0 {
		o.HeartbeatTTL = 30 * time.Second
	}
	if o.Conn.Name == "" {
		o.Conn.Name = "yinsh-trainer " + o.Run
	}
	o.Conn.Log = o.Log
	if o.Replicas == 0 {
		o.Replicas = 1
	}
	if o.Replicas < 1 || o.Replicas > 5 {
		return nil, fmt.Errorf("cluster: %d replicas: want 1 to 5", o.Replicas)
	}
	nc, js, err := connect(o.Conn, TrainerInbox(o.Run))
	if err != nil {
		return nil, err
	}
	t := &Trainer{o: o, n: namesFor(o.Run), nc: nc, js: js, log: o.Log}
	if err := t.setup(ctx); err != nil {
		nc.Close()
		return nil, err
	}
	return t, nil
}

func (t *Trainer) setup(ctx context.Context) error {
	n := t.n
	if t.o.Fresh {
		for _, del := range []func() error{
			func() error { return t.js.DeleteStream(ctx, n.stream) },
			func() error { return t.js.DeleteKeyValue(ctx, n.kv) },
			func() error { return t.js.DeleteKeyValue(ctx, n.workers) },
			func() error { return t.js.DeleteObjectStore(ctx, n.objects) },
		} {
			if err := del(); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) && !errors.Is(err, jetstream.ErrBucketNotFound) {
				return fmt.Errorf("cluster: removing an earlier run named %q: %w", n.run, err)
			}
		}
	}
	_, err := t.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: n.stream, Subjects: []string{n.subject}, Storage: jetstream.FileStorage,
		Retention: jetstream.WorkQueuePolicy, Duplicates: 10 * time.Minute, MaxMsgSize: 8 << 20,
		MaxMsgs: maxMsgs(t.o.MaxBacklog), Discard: jetstream.DiscardNew, Replicas: t.o.Replicas,
		Description: "YINSH Zero self-play games of run " + n.run,
	})
	if err != nil {
		return fmt.Errorf("cluster: games stream %s: %w", n.stream, err)
	}
	t.cons, err = t.js.CreateOrUpdateConsumer(ctx, n.stream, jetstream.ConsumerConfig{
		Durable: n.consumer, AckPolicy: jetstream.AckExplicitPolicy, AckWait: t.o.AckWait,
		MaxAckPending: 4096, FilterSubject: n.subject, DeliverPolicy: jetstream.DeliverAllPolicy, Replicas: t.o.Replicas,
	})
	if err != nil {
		return fmt.Errorf("cluster: consumer %s: %w", n.consumer, err)
	}
	if t.kv, err = t.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: n.kv, History: 1, Storage: jetstream.FileStorage, Replicas: t.o.Replicas}); err != nil {
		return fmt.Errorf("cluster: bucket %s: %w", n.kv, err)
	}
	if _, err = t.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: n.workers, History: 1, TTL: t.o.HeartbeatTTL, Storage: jetstream.FileStorage, Replicas: t.o.Replicas}); err != nil {
		return fmt.Errorf("cluster: bucket %s: %w", n.workers, err)
	}
	if t.obj, err = t.js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: n.objects, Storage: jetstream.FileStorage, Replicas: t.o.Replicas}); err != nil {
		return fmt.Errorf("cluster: object store %s: %w", n.objects, err)
	}
	if e, err := t.kv.Get(ctx, countersKey); err == nil {
		if err := parseJSON(e.Value(), &t.counters, "counters"); err != nil {
			t.log.Warn("cluster: counters in the KV unreadable, starting from zero", "err", err)
			t.counters = Counters{}
		}
	} else if !errors.Is(err, jetstream.ErrKeyNotFound) {
		return err
	}
	if t.counters.ByWorker == nil {
		t.counters.ByWorker = map[string]int{}
	}
	return nil
}

// Close closes the connection.
func (t *Trainer) Close() { t.nc.Close() }

// Counters returns the ingest totals so far.
func (t *Trainer) Counters() Counters { return t.counters }

// Publish makes generation g's self-play use the checkpoint at path (the best network): it uploads
// the checkpoint to the object store (under its name, e.g. gen-0003, unless already there with the
// same checksum) and then rewrites the run key. config is the run's resolved config.
func (t *Trainer) Publish(ctx context.Context, g int, network, path string, config []byte) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	hexsum := hex.EncodeToString(sum[:])
	if t.info.Network != network || t.info.SHA256 != hexsum {
		if _, err := t.obj.PutBytes(ctx, network, data); err != nil {
			return fmt.Errorf("cluster: publishing network %s: %w", network, err)
		}
	}
	t.info = RunInfo{Format: runInfoFormat, Run: t.n.run, Generation: g, Network: network, SHA256: hexsum,
		Size: int64(len(data)), Config: string(config), Staleness: t.o.Staleness, Time: time.Now().UTC().Format(time.RFC3339)}
	return t.putInfo(ctx)
}

func (t *Trainer) putInfo(ctx context.Context) error {
	b, err := json.Marshal(t.info)
	if err != nil {
		return err
	}
	if _, err := t.kv.Put(ctx, runKey, b); err != nil {
		return fmt.Errorf("cluster: run key: %w", err)
	}
	t.log.Info("cluster: published", "run", t.n.run, "generation", t.info.Generation, "network", t.info.Network)
	return nil
}

// IngestOptions configures one generation's ingest.
type IngestOptions struct {
	Generation int // the generation being filled
	Need       int // games to append
	// Seen holds the ids of the games already in the shards (datasets.RecordedIDs); a game in it is
	// acknowledged and skipped (redelivered after a crash between the fsync and the ack), and every
	// game appended is added.
	Seen map[uint64]bool
	// Append appends the game to the shards (and the window); an error that wraps ErrBadGame drops
	// the game (counted as invalid), any other stops the ingest.
	Append func(Game) error
	// Sync makes the appended games durable; games are acknowledged only after it returns.
	Sync func() error
	// Batch is the most games fetched at once (default 64).
	Batch int
}

// ErrBadGame marks a game the trainer refuses (it does not replay by the rules, another variant).
var ErrBadGame = errors.New("cluster: bad game")

// IngestStats counts one generation's ingest.
type IngestStats struct {
	Appended, Stale, Duplicates, Invalid int
	ByWorker                             map[string]int
}

// Ingest fetches games from the stream until Need of them are appended: each batch is appended,
// synced, and only then acknowledged. Games of networks older than the staleness allows, games
// already in the shards and invalid messages are acknowledged and dropped (and counted).
func (t *Trainer) Ingest(ctx context.Context, o IngestOptions) (IngestStats, error) {
	st := IngestStats{ByWorker: map[string]int{}}
	if o.Batch <= 0 {
		o.Batch = 64
	}
	for st.Appended < o.Need {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		batch, err := t.cons.Fetch(min(o.Need-st.Appended, o.Batch), jetstream.FetchMaxWait(time.Second))
		if err != nil {
			if errors.Is(err, context.Canceled) || ctx.Err() != nil {
				return st, ctx.Err()
			}
			t.log.Warn("cluster: fetch failed (retrying)", "err", err)
			time.Sleep(250 * time.Millisecond)
			continue
		}
		var done []jetstream.Msg
		var appended bool
		for msg := range batch.Messages() {
			keep, err := t.ingestOne(msg, o, &st)
			if err != nil {
				return st, err
			}
			appended = appended || keep
			done = append(done, msg)
		}
		if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, jetstream.ErrNoMessages) {
			t.log.Debug("cluster: fetch ended", "err", err)
		}
		if len(done) == 0 {
			continue
		}
		if appended {
			if err := o.Sync(); err != nil {
				return st, err
			}
		}
		for _, m := range done {
			// DoubleAck waits for the server's confirmation, so that when Ingest returns the
			// work queue has dropped these games and the backlog bound has room again.
			actx, acancel := context.WithTimeout(ctx, opTimeout)
			err := m.DoubleAck(actx)
			acancel()
			if err != nil {
				t.log.Warn("cluster: ack failed (the game will be redelivered and skipped as a duplicate)", "err", err)
			}
		}
		if err := t.putCounters(ctx); err != nil {
			t.log.Warn("cluster: counters not written", "err", err)
		}
	}
	return st, nil
}

// ingestOne handles one message; keep reports whether it was appended.
func (t *Trainer) ingestOne(msg jetstream.Msg, o IngestOptions, st *IngestStats) (bool, error) {
	g, err := ParseGame(msg.Data())
	if err == nil && msg.Headers().Get(jetstream.MsgIDHeader) != MsgID(g.Record.ID) {
		err = fmt.Errorf("cluster: game message: Nats-Msg-Id %q is not the game's id %s", msg.Headers().Get(jetstream.MsgIDHeader), MsgID(g.Record.ID))
	}
	if err != nil {
		st.Invalid++
		t.counters.Invalid++
		t.log.Warn("cluster: invalid game message dropped", "err", err)
		return false, nil
	}
	id := g.Record.ID
	switch {
	case o.Seen[id]:
		st.Duplicates++
		t.counters.Duplicates++
		return false, nil
	case g.Generation < o.Generation-t.o.Staleness:
		st.Stale++
		t.counters.Stale++
		t.log.Debug("cluster: stale game dropped", "id", MsgID(id), "game_generation", g.Generation, "generation", o.Generation, "worker", g.Worker)
		return false, nil
	case g.Generation > o.Generation:
		st.Invalid++
		t.counters.Invalid++
		t.log.Warn("cluster: game of a later generation than the trainer's dropped (another run of the same name?)", "id", MsgID(id), "game_generation", g.Generation, "generation", o.Generation)
		return false, nil
	}
	if err := o.Append(g); err != nil {
		if errors.Is(err, ErrBadGame) {
			st.Invalid++
			t.counters.Invalid++
			t.log.Warn("cluster: game refused", "id", MsgID(id), "worker", g.Worker, "err", err)
			return false, nil
		}
		return false, err
	}
	o.Seen[id] = true
	st.Appended++
	st.ByWorker[g.Worker]++
	t.counters.Ingested++
	t.counters.ByWorker[g.Worker]++
	return true, nil
}

func (t *Trainer) putCounters(ctx context.Context) error {
	b, err := json.Marshal(t.counters)
	if err != nil {
		return err
	}
	pctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	_, err = t.kv.Put(pctx, countersKey, b)
	return err
}

// opTimeout bounds one JetStream request whose failure Ingest survives (an ack, the counters).
// During a leader election a request can go unanswered for good (the servers that are not the
// leader ignore it and the new leader never sees it), so it must not wait on the caller's
// context, which may have minutes left.
const opTimeout = 5 * time.Second

// Finish marks the run finished: workers stop. It waits up to linger for the workers to leave
// (their heartbeats removed), so that an embedded server is not shut down before they saw the end.
func (t *Trainer) Finish(ctx context.Context, linger time.Duration) error {
	if t.info.Network == "" {
		return nil
	}
	t.info.Finished = true
	if err := t.putInfo(ctx); err != nil {
		return err
	}
	hb, err := t.js.KeyValue(ctx, t.n.workers)
	if err != nil {
		return nil
	}
	for end := time.Now().Add(linger); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		keys, err := hb.Keys(ctx)
		if errors.Is(err, jetstream.ErrNoKeysFound) || err == nil && len(keys) == 0 {
			break
		}
	}
	return nil
}

func maxMsgs(backlog int) int64 {
	if backlog <= 0 {
		return -1
	}
	return int64(backlog)
}
