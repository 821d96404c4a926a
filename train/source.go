package train

import (
	"context"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/model"
)

// A GameSource fills each generation's self-play: the games played in this process (localSource,
// the default) or the games cluster workers publish (clusterSource, with a cluster section).
type GameSource interface {
	// Games records generation g's selfplay.games games in the writer and the window and returns
	// their statistics; the games of g that a killed run recorded (resumed: g is the generation a
	// resumed run took up) count and are not played again.
	Games(ctx context.Context, p GenPlay) (SelfPlayStats, error)
	// Finish is called once the last generation is done; Close always, at the end.
	Finish(ctx context.Context) error
	Close() error
}

// GenPlay is one generation's self-play request.
type GenPlay struct {
	Generation int
	Resumed    bool
	Best       model.Net // the best network
	BestPath   string    // its checkpoint (relative to the run directory)
	Writer     *datasets.Writer
	Window     *datasets.Window
}

// localSource plays the games in this process, numbered over the run and seeded by number.
type localSource struct {
	o    Options
	gdir string
}

func (s *localSource) Games(ctx context.Context, p GenPlay) (SelfPlayStats, error) {
	cfg, g := &s.o.Config, p.Generation
	first := (g - 1) * cfg.SelfPlay.Games
	rec := recorded{done: map[int]bool{}}
	if p.Resumed {
		var err error
		if rec, err = recordedGames(s.gdir, g, cfg.Seed, first, cfg.SelfPlay.Games, s.o.Log); err != nil {
			return SelfPlayStats{}, err
		}
	}
	todo := missing(rec.done, first, cfg.SelfPlay.Games)
	if rec.stats.Recovered > 0 {
		s.o.Log.Info("self-play: games of this generation already recorded", "generation", g, "recorded", rec.stats.Recovered, "to_play", len(todo))
	}
	sps, err := PlaySelfPlay(ctx, SelfPlayOptions{
		Config: cfg, Net: p.Best, Generator: GenName(g), Indices: todo,
		Seed: cfg.Seed, Writer: p.Writer, Window: p.Window, Progress: s.o.Progress,
	})
	sps.add(rec.stats)
	return sps, err
}

func (s *localSource) Finish(context.Context) error { return nil }
func (s *localSource) Close() error                 { return nil }

// openSource returns the run's game source.
func openSource(ctx context.Context, o Options, gdir string) (GameSource, error) {
	if !o.Config.Cluster.Enabled() {
		return &localSource{o: o, gdir: gdir}, nil
	}
	return openClusterSource(ctx, o, gdir)
}
