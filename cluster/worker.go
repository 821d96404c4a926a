package cluster

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/internal/atomicfile"
	"github.com/yinsh-zero/yinsh/model"
)

// Job is what a worker asks its PlayFunc to play: self-play games with Net under the run's
// settings, numbered FirstIndex, FirstIndex+1, … and seeded from (Seed, number), until Stop says so
// (then the games in progress are finished and no new one starts) or the context ends.
type Job struct {
	Info       RunInfo // the run's settings (Info.Config is its resolved config)
	Net        model.Net
	Seed       uint64
	FirstIndex int
	Parallel   int // games at once (0: the config's)
	Stop       func() bool
}

// PlayFunc plays a job's games, handing each finished one to onGame, and returns how many games it
// started (all finished unless it returns an error).
type PlayFunc func(ctx context.Context, job Job, onGame func(*datasets.Record) error) (int, error)

// WorkerOptions configures a worker.
type WorkerOptions struct {
	Conn ConnOptions
	Run  string
	// Name identifies the worker (heartbeat key, games by source); default host-pid.
	Name     string
	Parallel int
	Load     func(path string) (model.Net, error) // reads a checkpoint with the worker's backend
	Play     PlayFunc
	// CacheDir receives the fetched networks (default a new temporary directory, removed at exit).
	CacheDir  string
	Heartbeat time.Duration // heartbeat interval (default 5 s)
	Log       *slog.Logger
	// OnPublished, if set, is called after each game is stored by the server.
	OnPublished func(Game)
}

// ErrRunFinished is returned by RunWorker when the trainer has finished the run.
var ErrRunFinished = errors.New("cluster: the run is finished")

// workerName makes a name usable as a KV key.
func workerName(s string) string {
	if n := keySafe(s); n != "" {
		return n
	}
	return "worker"
}

// RunWorker plays games for the run until the context ends (it returns nil) or the trainer
// finishes the run (ErrRunFinished). It returns an error at once for refused credentials or a run
// the server does not hold.
func RunWorker(ctx context.Context, o WorkerOptions) error {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Name == "" {
		host, _ := os.Hostname()
		o.Name = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	o.Name = workerName(o.Name)
	if o.Heartbeat <= 0 {
		o.Heartbeat = 5 * time.Second
	}
	log := o.Log.With("worker", o.Name)
	n := namesFor(o.Run)
	// the embedded server reads the worker's name from its connection's name and lets it subscribe
	// under that worker's inbox prefix only
	o.Conn.Name = WorkerConnName(o.Name)
	o.Conn.Log = log
	nc, js, err := connect(o.Conn, WorkerInbox(o.Run, o.Name))
	if err != nil {
		return err
	}
	defer nc.Close()
	kv, err := bindRun(ctx, js, n, o.Conn.URL)
	if err != nil {
		return err
	}
	hb, err := js.KeyValue(ctx, n.workers)
	if err != nil {
		return fmt.Errorf("cluster: run %q: workers bucket: %w", n.run, err)
	}
	obj, err := js.ObjectStore(ctx, n.objects)
	if err != nil {
		return fmt.Errorf("cluster: run %q: networks: %w", n.run, err)
	}
	if o.CacheDir == "" {
		if o.CacheDir, err = os.MkdirTemp("", "yinsh-worker-"); err != nil {
			return err
		}
		defer os.RemoveAll(o.CacheDir)
	}
	var seedBytes [8]byte
	if _, err := rand.Read(seedBytes[:]); err != nil {
		return err
	}
	w := &worker{o: o, log: log, n: n, js: js, seed: binary.LittleEndian.Uint64(seedBytes[:]), started: time.Now()}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	watch, err := kv.Watch(ctx, runKey)
	if err != nil {
		return fmt.Errorf("cluster: run %q: watching the run key: %w", n.run, err)
	}
	defer watch.Stop()
	changed := make(chan struct{}, 1)
	// the games in progress when the run finishes are of no use: they are abandoned at once
	playCtx, playCancel := context.WithCancel(ctx)
	defer playCancel()
	var mu sync.Mutex
	var lastRev uint64
	// update takes a run key of revision rev; an older one (a poll answered after the watch
	// delivered a newer value) is ignored
	update := func(ri RunInfo, rev uint64) {
		mu.Lock()
		defer mu.Unlock()
		if rev < lastRev {
			return
		}
		lastRev = rev
		w.latest.Store(&ri)
		if ri.Finished {
			playCancel()
		}
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	go func() {
		for e := range watch.Updates() {
			if e == nil || e.Operation() != jetstream.KeyValuePut {
				continue
			}
			ri, err := ParseRunInfo(e.Value())
			if err != nil {
				log.Warn("cluster: run key unreadable", "err", err)
				continue
			}
			update(ri, e.Revision())
		}
	}()
	// the watch delivers changes at once; a poll every 2 s covers a watch that lost its consumer
	// (a restarted server without that consumer)
	go func() {
		t := time.NewTicker(2 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			e, err := kv.Get(ctx, runKey)
			if err != nil {
				continue
			}
			ri, err := ParseRunInfo(e.Value())
			if err != nil {
				continue
			}
			if old := w.latest.Load(); old == nil || *old != ri {
				update(ri, e.Revision())
			}
		}
	}()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); w.heartbeats(ctx, hb) }()
	defer func() {
		// leaving: remove the heartbeat, so the trainer and status see the worker gone
		dctx, dcancel := context.WithTimeout(context.Background(), time.Second)
		hb.Delete(dctx, o.Name)
		dcancel()
	}()
	defer wg.Wait()
	defer cancel()

	log.Info("cluster: worker started", "server", o.Conn.URL, "run", n.run, "parallel", o.Parallel)
	var net model.Net
	var netInfo RunInfo
	defer func() {
		if net != nil {
			net.Close()
		}
	}()
	next, fetchFails := 0, 0
	for {
		ri := w.latest.Load()
		for ri == nil {
			select {
			case <-ctx.Done():
				return nil
			case <-changed:
			case <-time.After(time.Second):
				if nc.IsClosed() {
					return errors.New("cluster: connection closed")
				}
			}
			ri = w.latest.Load()
		}
		if ri.Finished {
			log.Info("cluster: the run is finished; worker exits", "games", w.games.Load())
			return ErrRunFinished
		}
		if net == nil || ri.Network != netInfo.Network || ri.SHA256 != netInfo.SHA256 {
			nn, err := w.fetch(ctx, obj, *ri)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				// the server may be restarting with the trainer, or the network being replaced:
				// try again (a newer run key may name another network by then)
				fetchFails++
				log.Warn("cluster: network not fetched, retrying", "network", ri.Network, "attempt", fetchFails, "err", err)
				select {
				case <-ctx.Done():
					return nil
				case <-changed:
				case <-time.After(min(time.Duration(fetchFails)*500*time.Millisecond, 5*time.Second)):
				}
				continue
			}
			fetchFails = 0
			if net != nil {
				net.Close()
			}
			net = nn
		}
		netInfo = *ri
		w.gen.Store(int64(ri.Generation))
		job := Job{Info: *ri, Net: net, Seed: w.seed, FirstIndex: next, Parallel: o.Parallel, Stop: func() bool {
			li := w.latest.Load()
			return ctx.Err() != nil || li.Finished || li.Network != netInfo.Network || li.SHA256 != netInfo.SHA256 || li.Config != netInfo.Config
		}}
		played, err := o.Play(playCtx, job, func(r *datasets.Record) error { return w.publish(playCtx, netInfo, r) })
		next += played
		if ctx.Err() != nil {
			return nil
		}
		if w.latest.Load().Finished {
			continue // reported at the top of the loop
		}
		if err != nil {
			return fmt.Errorf("cluster: worker %s: %w", o.Name, err)
		}
	}
}

type worker struct {
	o       WorkerOptions
	log     *slog.Logger
	n       names
	js      jetstream.JetStream
	seed    uint64
	started time.Time
	latest  atomic.Pointer[RunInfo]
	games   atomic.Int64
	gen     atomic.Int64
}

// fetch downloads the run's network, verifies its size and SHA-256, and loads it.
func (w *worker) fetch(ctx context.Context, obj jetstream.ObjectStore, ri RunInfo) (model.Net, error) {
	data, err := obj.GetBytes(ctx, ri.Network)
	if err != nil {
		return nil, fmt.Errorf("cluster: fetching network %s: %w", ri.Network, err)
	}
	sum := sha256.Sum256(data)
	if int64(len(data)) != ri.Size || hex.EncodeToString(sum[:]) != ri.SHA256 {
		return nil, fmt.Errorf("cluster: network %s: %d bytes with SHA-256 %x, the run key says %d bytes %s", ri.Network, len(data), sum, ri.Size, ri.SHA256)
	}
	path := filepath.Join(w.o.CacheDir, fmt.Sprintf("%s-%s.ckpt", workerName(ri.Network), ri.SHA256[:12]))
	if err := atomicfile.WriteFile(path, data); err != nil {
		return nil, err
	}
	net, err := w.o.Load(path)
	os.Remove(path)
	if err != nil {
		return nil, fmt.Errorf("cluster: network %s: %w", ri.Network, err)
	}
	w.log.Info("cluster: network loaded", "network", ri.Network, "generation", ri.Generation, "sha256", ri.SHA256[:12])
	return net, nil
}

// publish sends one finished game, retrying with the same message id until the server stores it
// (or the context ends): a retry of a game already stored is dropped by the server as a duplicate.
func (w *worker) publish(ctx context.Context, played RunInfo, r *datasets.Record) error {
	gen := played.Generation
	// the run may have moved on to later generations with the same network: the game is as fresh
	if li := w.latest.Load(); li != nil && li.Network == played.Network && li.SHA256 == played.SHA256 && li.Generation > gen {
		gen = li.Generation
	}
	g := Game{Generation: gen, Worker: w.o.Name, Record: r}
	data, err := EncodeGame(g)
	if err != nil {
		return err
	}
	msg := &nats.Msg{Subject: w.n.subject, Data: data, Header: nats.Header{}}
	id := MsgID(r.ID)
	msg.Header.Set(jetstream.MsgIDHeader, id)
	for attempt := 0; ; attempt++ {
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		ack, err := w.js.PublishMsg(pctx, msg)
		cancel()
		if err == nil {
			w.games.Add(1)
			w.log.Debug("cluster: game published", "id", id, "generation", gen, "seq", ack.Sequence, "duplicate", ack.Duplicate)
			if w.o.OnPublished != nil {
				w.o.OnPublished(g)
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, nats.ErrPermissionViolation) || strings.Contains(err.Error(), "Permissions Violation") {
			return fmt.Errorf("cluster: publishing games: %w", err)
		}
		w.log.Warn("cluster: publish failed, retrying", "id", id, "attempt", attempt+1, "err", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(min(time.Duration(attempt+1)*250*time.Millisecond, 5*time.Second)):
		}
	}
}

// heartbeats writes the worker's heartbeat every interval until the context ends.
func (w *worker) heartbeats(ctx context.Context, hb jetstream.KeyValue) {
	host, _ := os.Hostname()
	t := time.NewTicker(w.o.Heartbeat)
	defer t.Stop()
	for {
		games := w.games.Load()
		el := time.Since(w.started)
		h := Heartbeat{Worker: w.o.Name, Host: host, PID: os.Getpid(), Parallel: w.o.Parallel, Generation: int(w.gen.Load()),
			Games: int(games), Started: w.started.UTC().Format(time.RFC3339), Time: time.Now().UTC().Format(time.RFC3339)}
		if el > 0 {
			h.GamesHour = float64(games) / el.Hours()
		}
		b, _ := json.Marshal(h)
		if _, err := hb.Put(ctx, w.o.Name, b); err != nil && ctx.Err() == nil {
			w.log.Debug("cluster: heartbeat not written", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
