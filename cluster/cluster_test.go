package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/yinsh-zero/yinsh/cluster"
	"github.com/yinsh-zero/yinsh/cluster/natsserver"
	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/internal/testenv"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
	"github.com/yinsh-zero/yinsh/selfplay"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// timingTests enables the assertions on wall-clock durations (YINSH_TIMING_TESTS=1): on a loaded
// machine they fail without a bug, so go test leaves them out.
var timingTests = testenv.Timing()

// waitHeartbeat waits until worker has written its heartbeat into run's workers bucket (a KV
// watch: no polling).
func waitHeartbeat(t *testing.T, ctx context.Context, url, run, worker string) {
	t.Helper()
	nc, js, err := cluster.Connect(cluster.ConnOptions{URL: url, Log: quiet}, run)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	kv, err := js.KeyValue(ctx, cluster.NamesFor(run).Workers)
	if err != nil {
		t.Fatal(err)
	}
	w, err := kv.Watch(ctx, worker)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for e := range w.Updates() {
		if e != nil && e.Operation() == jetstream.KeyValuePut {
			return
		}
	}
	t.Fatalf("no heartbeat of %s before %v", worker, ctx.Err())
}

// randomGame plays a random blitz game seeded by seed: a valid record, fast.
func randomGame(seed uint64, gen string) *datasets.Record {
	rng := rand.New(rand.NewPCG(seed, 1))
	s := env.NewState(env.Blitz)
	r := &datasets.Record{ID: seed, Variant: env.Blitz, Generator: gen}
	var buf []env.Action
	for !s.IsTerminal() && len(r.Actions) < 400 {
		buf = s.LegalActions(buf[:0])
		a := buf[rng.IntN(len(buf))]
		r.Actions = append(r.Actions, a)
		r.Targets = append(r.Targets, datasets.Target{Policy: datasets.OneHot(a)})
		if err := s.ApplyAction(a); err != nil {
			panic(err)
		}
	}
	r.Outcome = s.Outcome()
	return r
}

// fakePlay plays random games (a game every few milliseconds per slot) until the job stops.
func fakePlay(pause time.Duration) cluster.PlayFunc {
	return func(ctx context.Context, job cluster.Job, onGame func(*datasets.Record) error) (int, error) {
		n := 0
		for !job.Stop() {
			select {
			case <-ctx.Done():
				return n, ctx.Err()
			case <-time.After(pause):
			}
			r := randomGame(selfplay.GameSeed(job.Seed, job.FirstIndex+n), "gen")
			n++
			if err := onGame(r); err != nil {
				return n, err
			}
		}
		return n, nil
	}
}

// tinyCheckpoint writes a tiny network's checkpoint and returns its path.
func tinyCheckpoint(t testing.TB, dir string, seed uint64) string {
	t.Helper()
	cfg, err := model.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	net, err := gonum.New(cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	defer net.Close()
	path := filepath.Join(dir, fmt.Sprintf("net-%d.ckpt", seed))
	if err := model.SaveNet(net, path, model.Origin{}); err != nil {
		t.Fatal(err)
	}
	return path
}

func loadNet(path string) (model.Net, error) { return gonum.Load(path) }

// freePort returns a free loopback TCP port.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

type fixture struct {
	t     *testing.T
	dir   string
	srv   *natsserver.Server
	tr    *cluster.Trainer
	run   string
	ckpt  string
	gdir  string
	w     *datasets.Writer
	seen  map[uint64]bool
	mu    sync.Mutex
	games map[uint64]int // ids appended, with the number of times
}

func newFixture(t *testing.T, o cluster.ServerOptions, staleness int) *fixture {
	t.Helper()
	f := &fixture{t: t, dir: t.TempDir(), run: "test-run", seen: map[uint64]bool{}, games: map[uint64]int{}}
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	o.Dir, o.Run, o.Log = filepath.Join(f.dir, "nats"), f.run, quiet
	srv, err := natsserver.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	f.srv = srv
	t.Cleanup(srv.Close)
	f.tr, err = cluster.OpenTrainer(context.Background(), cluster.TrainerOptions{
		Conn: cluster.ConnOptions{URL: srv.URL(), Creds: srv.TrainerCreds()}, Run: f.run, Fresh: true, Staleness: staleness, Log: quiet,
		HeartbeatTTL: 2 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.tr.Close)
	f.ckpt = tinyCheckpoint(t, f.dir, 1)
	f.gdir = filepath.Join(f.dir, "games")
	f.w, err = datasets.NewWriter(f.gdir, datasets.WriterOptions{GamesPerShard: 7, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) ingest(ctx context.Context, g, need int) cluster.IngestStats {
	f.t.Helper()
	st, err := f.tr.Ingest(ctx, cluster.IngestOptions{Generation: g, Need: need, Seen: f.seen, Sync: f.w.Sync, Batch: 5,
		Append: func(game cluster.Game) error {
			f.mu.Lock()
			f.games[game.Record.ID]++
			f.mu.Unlock()
			return f.w.Append(game.Record)
		}})
	if err != nil {
		f.t.Fatal(err)
	}
	return st
}

func (f *fixture) worker(ctx context.Context, name string, creds cluster.Creds, published chan<- cluster.Game) <-chan error {
	done := make(chan error, 1)
	go func() {
		done <- cluster.RunWorker(ctx, cluster.WorkerOptions{Conn: cluster.ConnOptions{URL: f.srv.URL(), Creds: creds}, Run: f.run, Name: name, Parallel: 1,
			Load: loadNet, Play: fakePlay(2 * time.Millisecond), Log: quiet, Heartbeat: 50 * time.Millisecond,
			OnPublished: func(g cluster.Game) {
				if published != nil {
					select {
					case published <- g:
					default:
					}
				}
			}})
	}()
	return done
}

// TestIngestFromWorkers: two workers play for a trainer through an embedded server; every game
// ingested is in the shards exactly once, the counts by worker add up, a new generation with the
// same network keeps the workers playing, and finishing the run stops them.
func TestIngestFromWorkers(t *testing.T) {
	f := newFixture(t, cluster.ServerOptions{}, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := f.tr.Publish(ctx, 1, "gen-0000", f.ckpt, []byte("variant: blitz\n")); err != nil {
		t.Fatal(err)
	}
	w1, w2 := f.worker(ctx, "w1", cluster.Creds{}, nil), f.worker(ctx, "w2", cluster.Creds{}, nil)
	st := f.ingest(ctx, 1, 20)
	if st.Appended != 20 || st.ByWorker["w1"]+st.ByWorker["w2"] != 20 {
		t.Fatalf("generation 1: %+v", st)
	}
	if err := f.tr.Publish(ctx, 2, "gen-0000", f.ckpt, []byte("variant: blitz\n")); err != nil {
		t.Fatal(err)
	}
	st = f.ingest(ctx, 2, 10)
	if st.Appended != 10 {
		t.Fatalf("generation 2: %+v", st)
	}
	// one worker may have played all 30 games before the other's first heartbeat (a loaded machine)
	waitHeartbeat(t, ctx, f.srv.URL(), f.run, "w1")
	waitHeartbeat(t, ctx, f.srv.URL(), f.run, "w2")
	rep, err := cluster.Status(ctx, cluster.ConnOptions{URL: f.srv.URL()}, f.run)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Run.Generation != 2 || len(rep.Workers) != 2 || rep.Counters.Ingested != 30 {
		t.Fatalf("status: %+v", rep)
	}
	var b strings.Builder
	rep.Write(&b)
	for _, want := range []string{"generation 2", "workers seen: 2", "w1", "w2", "games/hour", "stream backlog"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("status text lacks %q:\n%s", want, b.String())
		}
	}
	if err := f.tr.Finish(ctx, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	for _, w := range []<-chan error{w1, w2} {
		if err := <-w; !errors.Is(err, cluster.ErrRunFinished) {
			t.Fatalf("worker ended with %v, want cluster.ErrRunFinished", err)
		}
	}
	if err := f.w.Close(); err != nil {
		t.Fatal(err)
	}
	ids := map[uint64]int{}
	if err := datasets.ScanDir(f.gdir, func(_ string, _ int, r *datasets.Record) error { ids[r.ID]++; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 30 {
		t.Fatalf("%d games in the shards, want 30", len(ids))
	}
	for id, n := range ids {
		if n != 1 {
			t.Errorf("game %x recorded %d times", id, n)
		}
	}
}

// publishRaw publishes a game message as a worker would.
func publishRaw(t *testing.T, js jetstream.JetStream, run string, g cluster.Game) *jetstream.PubAck {
	t.Helper()
	data, err := cluster.EncodeGame(g)
	if err != nil {
		t.Fatal(err)
	}
	msg := &nats.Msg{Subject: cluster.NamesFor(run).Subject, Data: data, Header: nats.Header{}}
	msg.Header.Set(jetstream.MsgIDHeader, cluster.MsgID(g.Record.ID))
	ack, err := js.PublishMsg(context.Background(), msg)
	if err != nil {
		t.Fatal(err)
	}
	return ack
}

// TestStaleDuplicateInvalid: a game of too old a network is dropped and counted; a game already in
// the shards (redelivered after a crash between fsync and ack) is skipped; a retried publish is
// stored once; a message that is no game is dropped.
func TestStaleDuplicateInvalid(t *testing.T) {
	f := newFixture(t, cluster.ServerOptions{}, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nc, js, err := cluster.Connect(cluster.ConnOptions{URL: f.srv.URL()}, f.run)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	stale := cluster.Game{Generation: 1, Worker: "old", Record: randomGame(1, "g")}
	dup := cluster.Game{Generation: 3, Worker: "w", Record: randomGame(2, "g")}
	fresh := cluster.Game{Generation: 2, Worker: "w", Record: randomGame(3, "g")}
	publishRaw(t, js, f.run, stale)
	publishRaw(t, js, f.run, dup)
	if ack := publishRaw(t, js, f.run, fresh); ack.Duplicate {
		t.Fatal("first publish flagged duplicate")
	}
	if ack := publishRaw(t, js, f.run, fresh); !ack.Duplicate {
		t.Fatal("a retried publish (same Nats-Msg-Id) was stored twice")
	}
	bad := &nats.Msg{Subject: cluster.NamesFor(f.run).Subject, Data: []byte("not a game"), Header: nats.Header{}}
	bad.Header.Set(jetstream.MsgIDHeader, "x")
	if _, err := js.PublishMsg(ctx, bad); err != nil {
		t.Fatal(err)
	}
	last := cluster.Game{Generation: 3, Worker: "w", Record: randomGame(4, "g")}
	publishRaw(t, js, f.run, last)
	f.seen[dup.Record.ID] = true
	st := f.ingest(ctx, 3, 2)
	if st.Appended != 2 || st.Stale != 1 || st.Duplicates != 1 || st.Invalid != 1 {
		t.Fatalf("ingest: %+v, want 2 appended, 1 stale, 1 duplicate, 1 invalid", st)
	}
	if f.games[fresh.Record.ID] != 1 || f.games[last.Record.ID] != 1 || f.games[stale.Record.ID] != 0 {
		t.Fatalf("appended %v", f.games)
	}
	c := f.tr.Counters()
	if c.Stale != 1 || c.Duplicates != 1 || c.Ingested != 2 {
		t.Fatalf("counters %+v", c)
	}
}

// TestServerRestart: games published before the embedded server stops are delivered after it
// starts again on the same file store; the trainer's counters continue from the KV.
func TestServerRestart(t *testing.T) {
	dir := t.TempDir()
	listen := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	o := cluster.ServerOptions{Dir: filepath.Join(dir, "nats"), Listen: listen, Run: "r", Log: quiet}
	srv, err := natsserver.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tr, err := cluster.OpenTrainer(ctx, cluster.TrainerOptions{Conn: cluster.ConnOptions{URL: srv.URL(), Creds: srv.TrainerCreds()}, Run: "r", Fresh: true, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	nc, js, err := cluster.Connect(cluster.ConnOptions{URL: srv.URL()}, "r")
	if err != nil {
		t.Fatal(err)
	}
	for i := uint64(1); i <= 5; i++ {
		publishRaw(t, js, "r", cluster.Game{Generation: 1, Worker: "w", Record: randomGame(i, "g")})
	}
	seen := map[uint64]bool{}
	noop := func() error { return nil }
	if _, err := tr.Ingest(ctx, cluster.IngestOptions{Generation: 1, Need: 2, Seen: seen, Sync: noop, Append: func(cluster.Game) error { return nil }}); err != nil {
		t.Fatal(err)
	}
	nc.Close()
	tr.Close()
	srv.Close()

	srv, err = natsserver.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tr, err = cluster.OpenTrainer(ctx, cluster.TrainerOptions{Conn: cluster.ConnOptions{URL: srv.URL(), Creds: srv.TrainerCreds()}, Run: "r", Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if c := tr.Counters(); c.Ingested != 2 {
		t.Fatalf("counters after restart: %+v, want 2 ingested", c)
	}
	var got []uint64
	if _, err := tr.Ingest(ctx, cluster.IngestOptions{Generation: 1, Need: 3, Seen: seen, Sync: noop, Append: func(g cluster.Game) error {
		got = append(got, g.Record.ID)
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != 3 || got[2] != 5 {
		t.Fatalf("after restart ingested %v, want [3 4 5]", got)
	}
	if c := tr.Counters(); c.Ingested != 5 {
		t.Fatalf("counters: %+v, want 5 ingested", c)
	}
}

// TestFinishAbandonsGames: a worker in the middle of long games leaves as soon as the run
// finishes (its games are of no use), removing its heartbeat, and the trainer's Finish returns
// once it has left.
func TestFinishAbandonsGames(t *testing.T) {
	f := newFixture(t, cluster.ServerOptions{}, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.tr.Publish(ctx, 1, "gen-0000", f.ckpt, []byte("x")); err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	slow := func(ctx context.Context, job cluster.Job, onGame func(*datasets.Record) error) (int, error) {
		close(started)
		<-ctx.Done() // a game that would take minutes
		return 1, ctx.Err()
	}
	done := make(chan error, 1)
	go func() {
		done <- cluster.RunWorker(ctx, cluster.WorkerOptions{Conn: cluster.ConnOptions{URL: f.srv.URL()}, Run: f.run, Name: "slow", Load: loadNet, Play: slow,
			Log: quiet, Heartbeat: 50 * time.Millisecond})
	}()
	<-started
	waitHeartbeat(t, ctx, f.srv.URL(), f.run, "slow")
	begin := time.Now()
	if err := f.tr.Finish(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, cluster.ErrRunFinished) {
		t.Fatalf("worker: %v, want cluster.ErrRunFinished", err)
	}
	if d := time.Since(begin); timingTests && d > 3*time.Second {
		t.Fatalf("the worker left %v after the run finished", d)
	}
	rep, err := cluster.Status(ctx, cluster.ConnOptions{URL: f.srv.URL()}, f.run)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Workers) != 0 || !rep.Run.Finished {
		t.Fatalf("after the end: workers %v, finished %v", rep.Workers, rep.Run.Finished)
	}
}

// TestMaxBacklog: beyond the bound the server refuses games; once the trainer has taken some, a
// retried publish is stored.
func TestMaxBacklog(t *testing.T) {
	dir := t.TempDir()
	srv, err := natsserver.Start(cluster.ServerOptions{Dir: filepath.Join(dir, "nats"), Listen: "127.0.0.1:0", Run: "b", Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tr, err := cluster.OpenTrainer(ctx, cluster.TrainerOptions{Conn: cluster.ConnOptions{URL: srv.URL(), Creds: srv.TrainerCreds()}, Run: "b", Fresh: true, MaxBacklog: 3, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	nc, js, err := cluster.Connect(cluster.ConnOptions{URL: srv.URL(), Log: quiet}, "b")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	for i := uint64(1); i <= 3; i++ {
		publishRaw(t, js, "b", cluster.Game{Generation: 1, Worker: "w", Record: randomGame(i, "g")})
	}
	extra := cluster.Game{Generation: 1, Worker: "w", Record: randomGame(4, "g")}
	data, _ := cluster.EncodeGame(extra)
	msg := &nats.Msg{Subject: cluster.NamesFor("b").Subject, Data: data, Header: nats.Header{}}
	msg.Header.Set(jetstream.MsgIDHeader, cluster.MsgID(4))
	if _, err := js.PublishMsg(ctx, msg); err == nil {
		t.Fatal("a fourth game was stored beyond a backlog of 3")
	}
	if _, err := tr.Ingest(ctx, cluster.IngestOptions{Generation: 1, Need: 2, Seen: map[uint64]bool{}, Sync: func() error { return nil },
		Append: func(cluster.Game) error { return nil }}); err != nil {
		t.Fatal(err)
	}
	// Ingest returns after the server confirmed its acknowledgements (DoubleAck): the work queue has
	// dropped the two games already, so the retried publish is stored at once.
	if _, err := js.PublishMsg(ctx, msg); err != nil {
		t.Fatalf("the retried publish after the trainer caught up: %v", err)
	}
}
