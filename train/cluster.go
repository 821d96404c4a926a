package train

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/yinsh-zero/yinsh/cluster"
	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/internal/progress"
)

// natsDir is the embedded server's JetStream file store in the run directory.
const natsDir = "nats"

// clusterSource takes each generation's games from cluster workers (cluster.Trainer.Ingest): the
// best network and the run's config are published when the generation starts; games are appended
// to the shards, synced, and only then acknowledged, and a game already in the shards (by its id)
// is skipped, so each finished game is recorded exactly once across crashes of the trainer.
type clusterSource struct {
	o    Options
	gdir string
	run  string
	srv  cluster.EmbeddedServer
	tr   *cluster.Trainer
	seen map[uint64]bool

	cancel    context.CancelFunc
	wg        sync.WaitGroup
	workerErr chan error
}

func openClusterSource(ctx context.Context, o Options, gdir string) (_ *clusterSource, err error) {
	cc := &o.Config.Cluster
	run := cc.Run
	if run == "" {
		if run, err = cluster.RunName(o.Dir); err != nil {
			return nil, err
		}
	}
	s := &clusterSource{o: o, gdir: gdir, run: run, workerErr: make(chan error, cc.LocalWorkers+1)}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	var trainerCreds, workerCreds cluster.Creds
	if cc.WorkerCreds != "" {
		if workerCreds, err = cluster.LoadCreds(cc.WorkerCreds); err != nil {
			return nil, fmt.Errorf("cluster.worker_creds: %w", err)
		}
	}
	if cc.Creds != "" {
		if trainerCreds, err = cluster.LoadCreds(cc.Creds); err != nil {
			return nil, fmt.Errorf("cluster.creds: %w", err)
		}
	}
	url := cc.Server
	clientTLS := cluster.TLS{CA: cc.TLS.CA}
	if cc.Server == "embedded" {
		listen := cc.Listen
		if listen == "" {
			listen = "127.0.0.1:4222"
		}
		if o.StartServer == nil {
			return nil, errors.New("cluster.server = embedded: this program has no embedded nats-server (train.Options.StartServer is nil)")
		}
		s.srv, err = o.StartServer(cluster.ServerOptions{
			Dir: filepath.Join(o.Dir, natsDir), Listen: listen, Run: run, WorkerCreds: workerCreds, TLS: cc.TLS, Log: o.Log,
		})
		if err != nil {
			return nil, err
		}
		url, trainerCreds = s.srv.URL(), s.srv.TrainerCreds()
	} else {
		clientTLS = cc.TLS
		workerCreds = trainerCreds // local workers share the trainer's connection settings
	}
	s.tr, err = cluster.OpenTrainer(ctx, cluster.TrainerOptions{
		Conn: cluster.ConnOptions{URL: url, Creds: trainerCreds, TLS: clientTLS}, Run: run,
		Fresh: !o.Resume, Staleness: cc.Staleness, AckWait: time.Duration(cc.AckWaitS) * time.Second,
		MaxBacklog: cmp.Or(cc.MaxBacklog, 10*o.Config.SelfPlay.Games), Replicas: cc.Replicas, Log: o.Log,
	})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(o.Out, "cluster: run %s on %s (workers: %s)\n", run, url, cluster.JoinCommand(run, url))
	wctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	for i := 1; i <= cc.LocalWorkers; i++ {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			err := cluster.RunWorker(wctx, cluster.WorkerOptions{
				Conn: cluster.ConnOptions{URL: url, Creds: workerCreds, TLS: clientTLS}, Run: run,
				Name: fmt.Sprintf("local-%d", i), Parallel: cc.WorkerParallel, Load: o.Backend.Load, Play: WorkerPlay, Log: o.Log,
			})
			if err != nil && !errors.Is(err, cluster.ErrRunFinished) {
				s.workerErr <- fmt.Errorf("local worker %d: %w", i, err)
			}
		}()
	}
	return s, nil
}

func (s *clusterSource) Games(ctx context.Context, p GenPlay) (SelfPlayStats, error) {
	cfg, g := &s.o.Config, p.Generation
	if s.seen == nil {
		ids, err := datasets.RecordedIDs(s.gdir)
		if err != nil {
			return SelfPlayStats{}, err
		}
		s.seen = ids
	}
	var rec SelfPlayStats
	if p.Resumed {
		gen := GenName(g)
		err := datasets.ScanDir(s.gdir, func(_ string, _ int, r *datasets.Record) error {
			if r.Generator == gen {
				rec.Games++
				rec.Recovered++
				rec.Positions += len(r.Actions)
				rec.Targets += r.TrainingTargets()
				rec.Results[r.Outcome]++
			}
			return nil
		})
		if err != nil {
			return SelfPlayStats{}, err
		}
		if rec.Games > 0 {
			s.o.Log.Info("self-play: games of this generation already recorded", "generation", g, "recorded", rec.Games)
		}
	}
	need := max(cfg.SelfPlay.Games-rec.Games, 0)
	y, err := cfg.YAML()
	if err != nil {
		return rec, err
	}
	if err := s.tr.Publish(ctx, g, GenName(bestGen(p.BestPath)), filepath.Join(s.o.Dir, p.BestPath), y); err != nil {
		return rec, err
	}
	var bar *progress.Bar
	if s.o.Progress != nil {
		bar = progress.New(s.o.Progress, need, "self-play (cluster)", 15*time.Second)
	}
	st := SelfPlayStats{Sources: map[string]int{}}
	start := time.Now()
	ictx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case err := <-s.workerErr:
			cancel(err)
		case <-ictx.Done():
		}
	}()
	variant := cfg.VariantValue()
	is, err := s.tr.Ingest(ictx, cluster.IngestOptions{
		Generation: g, Need: need, Seen: s.seen, Sync: p.Writer.Sync,
		Append: func(game cluster.Game) error {
			r := game.Record
			if r.Variant != variant {
				return fmt.Errorf("%w: variant %v, the run plays %v", cluster.ErrBadGame, r.Variant, variant)
			}
			if err := r.Validate(); err != nil {
				return fmt.Errorf("%w: %v", cluster.ErrBadGame, err)
			}
			r.Generator = GenName(g) // the generation whose self-play it fills (resume counts by it)
			if err := p.Writer.Append(r); err != nil {
				return err
			}
			fault("selfplay.game")
			if err := p.Window.Add(r); err != nil {
				return err
			}
			st.Games++
			st.Positions += len(r.Actions)
			st.Targets += r.TrainingTargets()
			st.Results[r.Outcome]++
			st.Sources[game.Worker]++
			bar.Add(1, fmt.Sprintf("from %s", game.Worker))
			return nil
		},
	})
	bar.Finish()
	st.Elapsed = time.Since(start)
	st.Stale, st.Duplicates = is.Stale, is.Duplicates
	st.add(rec)
	if err != nil && context.Cause(ictx) != nil && ctx.Err() == nil {
		err = context.Cause(ictx)
	}
	return st, err
}

func (s *clusterSource) Finish(ctx context.Context) error { return s.tr.Finish(ctx, 5*time.Second) }

func (s *clusterSource) Close() error {
	if s.cancel != nil {
		s.cancel()
		s.wg.Wait()
	}
	if s.tr != nil {
		s.tr.Close()
	}
	if s.srv != nil {
		s.srv.Close()
	}
	return nil
}

// WorkerPlay is the cluster workers' cluster.PlayFunc: the run's self-play (its published config)
// with the job's network, each game seeded by (job seed, number), until the job stops.
func WorkerPlay(ctx context.Context, job cluster.Job, onGame func(*datasets.Record) error) (int, error) {
	cfg, err := ParseConfig([]byte(job.Info.Config), "run "+job.Info.Run, nil)
	if err != nil {
		return 0, err
	}
	if job.Parallel > 0 {
		cfg.SelfPlay.Parallel = job.Parallel
	}
	st, err := PlaySelfPlay(ctx, SelfPlayOptions{
		Config: &cfg, Net: job.Net, Generator: GenName(job.Info.Generation), Games: 1 << 30, FirstGame: job.FirstIndex,
		Seed: job.Seed, OnRecord: onGame, Stop: job.Stop,
	})
	return st.Games, err
}
