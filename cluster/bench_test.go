package cluster_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/yinsh-zero/yinsh/cluster"
	"github.com/yinsh-zero/yinsh/cluster/natsserver"
	"github.com/yinsh-zero/yinsh/datasets"
)

// benchGames returns n random blitz games with self-play-sized targets: a sparse policy of up to 16
// actions on every position (a fake evaluator's search), so messages are as large as real ones.
func benchGames(n int) []*datasets.Record {
	out := make([]*datasets.Record, n)
	for i := range out {
		r := randomGame(uint64(i+1), "gen-0001")
		rng := rand.New(rand.NewPCG(uint64(i), 2))
		for k := range r.Targets {
			// 1..16 entries of 1/n on the played action (legal, so the writer's replay accepts
			// them): the size of a real search's sparse policy
			n := 1 + rng.IntN(16)
			p := make([]datasets.PolicyEntry, n)
			for j := range p {
				p[j] = datasets.PolicyEntry{Action: r.Targets[k].Policy[0].Action, Prob: 1 / float32(n)}
			}
			r.Targets[k].Policy = p
			r.Targets[k].RootWDL = [3]float32{0.4, 0.2, 0.4}
		}
		out[i] = r
	}
	return out
}

// BenchmarkIngestInProcess is the single-process baseline: games appended to the shards (with the
// replay the writer does) and synced every 64, as the cluster ingest does.
func BenchmarkIngestInProcess(b *testing.B) {
	games := benchGames(512)
	w, err := datasets.NewWriter(filepath.Join(b.TempDir(), "games"), datasets.WriterOptions{GamesPerShard: 1000, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := *games[i%len(games)]
		r.ID = uint64(i + 1)
		if err := w.Append(&r); err != nil {
			b.Fatal(err)
		}
		if i%64 == 63 {
			if err := w.Sync(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
}

// BenchmarkIngestJetStream is the same through the broker: a publisher (as a worker publishes:
// one message per game with its id, waiting for the server's ack) and the trainer's Ingest
// (fetch, append, fsync, ack) on an embedded server's file store.
func BenchmarkIngestJetStream(b *testing.B) {
	benchJetStream(b, true)
}

// BenchmarkBrokerOnly measures the broker alone: publish and ingest, the append a no-op.
func BenchmarkBrokerOnly(b *testing.B) {
	benchJetStream(b, false)
}

func benchJetStream(b *testing.B, write bool) {
	games := benchGames(512)
	dir := b.TempDir()
	srv, err := natsserver.Start(cluster.ServerOptions{Dir: filepath.Join(dir, "nats"), Listen: "127.0.0.1:0", Run: "bench", Log: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	tr, err := cluster.OpenTrainer(ctx, cluster.TrainerOptions{Conn: cluster.ConnOptions{URL: srv.URL(), Creds: srv.TrainerCreds()}, Run: "bench", Fresh: true, Log: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	w, err := datasets.NewWriter(filepath.Join(dir, "games"), datasets.WriterOptions{GamesPerShard: 1000, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	nc, js, err := cluster.Connect(cluster.ConnOptions{URL: srv.URL(), Log: quiet}, "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	subject := cluster.NamesFor("bench").Subject
	pubErr := make(chan error, 1)
	b.ResetTimer()
	start := time.Now()
	go func() {
		// a few publishers, as several workers would be
		const pubs = 4
		done := make(chan error, pubs)
		for p := 0; p < pubs; p++ {
			go func() {
				for i := p; i < b.N; i += pubs {
					r := *games[i%len(games)]
					r.ID = uint64(i + 1)
					data, err := cluster.EncodeGame(cluster.Game{Generation: 1, Worker: "bench", Record: &r})
					if err != nil {
						done <- err
						return
					}
					m := &nats.Msg{Subject: subject, Data: data, Header: nats.Header{}}
					m.Header.Set(jetstream.MsgIDHeader, cluster.MsgID(r.ID))
					if _, err := js.PublishMsg(ctx, m); err != nil {
						done <- err
						return
					}
				}
				done <- nil
			}()
		}
		for p := 0; p < pubs; p++ {
			if err := <-done; err != nil {
				pubErr <- err
				return
			}
		}
		pubErr <- nil
	}()
	seen := map[uint64]bool{}
	app := func(g cluster.Game) error { return nil }
	sync := func() error { return nil }
	if write {
		app = func(g cluster.Game) error { return w.Append(g.Record) }
		sync = w.Sync
	}
	st, err := tr.Ingest(ctx, cluster.IngestOptions{Generation: 1, Need: b.N, Seen: seen, Append: app, Sync: sync, Batch: 256})
	if err != nil {
		b.Fatal(err)
	}
	if err := <-pubErr; err != nil {
		b.Fatal(err)
	}
	if st.Appended != b.N {
		b.Fatalf("ingested %d of %d", st.Appended, b.N)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "games/s")
	size := 0
	for _, g := range games {
		data, _ := cluster.EncodeGame(cluster.Game{Generation: 1, Worker: "bench", Record: g})
		size += len(data)
	}
	b.ReportMetric(float64(size)/float64(len(games)), "bytes/game")
}
