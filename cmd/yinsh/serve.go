package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/engine"
	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/internal/loopback"
	"github.com/yinsh-zero/yinsh/selfplay"
	"github.com/yinsh-zero/yinsh/web"
)

// ServeOptions configures `yinsh serve`.
type ServeOptions struct {
	BackendFlags
	Out         io.Writer // the startup lines (address, warnings)
	Log         *slog.Logger
	Addr        string
	AllowRemote bool
	Player      string
	// Offer is --players: the opponents the page may choose (nil: the player, and the levels when
	// the variant has a reference network).
	Offer []string
	Runs  string
	// GamesDir keeps the games on disk across restarts ("" : in memory only), at most SavedGames.
	GamesDir   string
	SavedGames int
	// Search is the player's search settings (--sims and whether it was given, --movetime,
	// --gumbel, --leaves-in-flight, --rollout-mix): the one type every command builds players with.
	selfplay.Search
	Variant     env.Variant
	Seed        uint64
	Searches    int
	MaxSims     int
	MaxMoveTime time.Duration
	MaxStream   time.Duration
	AnyVariant  bool
	// Ready, if set, is called with the listening address (tests).
	Ready func(net.Addr)
}

func newServeCmd() *cobra.Command { return newCmdServe(nil) }

func newCmdServe(runF func(*ServeOptions) error) *cobra.Command {
	opts := &ServeOptions{}
	var variant, logLevel string
	var movetime, maxMovetime, maxStream int
	var players string
	var mix float64
	cmd := &cobra.Command{
		Use:   "serve [--addr 127.0.0.1:8080] [--player PLAYER] [--runs DIR]",
		Short: "Serve the web board: play, analyse, watch games and follow training in a browser",
		Long: `Serve the web board on --addr: play against PLAYER on an SVG board, analyse positions with it,
watch the games of the runs under --runs and follow their metrics live. Everything the page needs is
in the binary; it makes no request elsewhere. The JSON API it uses is docs/http-api.md.

The server listens on loopback only unless --allow-remote is given with another address: it has no
authentication, and anyone who reaches it can run searches and read the runs directory.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := parseVariant(variant)
			if err != nil {
				return err
			}
			if _, _, err := net.SplitHostPort(opts.Addr); err != nil {
				return fmt.Errorf("--addr %q: want HOST:PORT, e.g. 127.0.0.1:8080", opts.Addr)
			}
			if !loopback.Addr(opts.Addr) && !opts.AllowRemote {
				return fmt.Errorf("--addr %s is not a loopback address: the server has no authentication; pass --allow-remote to serve it anyway", opts.Addr)
			}
			if err := checkSearchFlags(mix, opts.Sims, movetime, opts.LeavesInFlight); err != nil {
				return err
			}
			if opts.Searches < 1 || opts.Searches > 256 {
				return fmt.Errorf("--searches must be in [1, 256], got %d", opts.Searches)
			}
			if opts.MaxSims < 1 || opts.MaxSims > selfplay.MaxSims {
				return fmt.Errorf("--max-sims must be in [1, %d], got %d", selfplay.MaxSims, opts.MaxSims)
			}
			if maxMovetime < 1 || maxMovetime > 3_600_000 {
				return fmt.Errorf("--max-movetime must be in [1, 3600000] milliseconds, got %d", maxMovetime)
			}
			if maxStream < 1 || maxStream > 3_600_000 {
				return fmt.Errorf("--max-stream must be in [1, 3600000] milliseconds, got %d", maxStream)
			}
			if opts.SavedGames < 1 {
				return fmt.Errorf("--saved-games must be at least 1, got %d", opts.SavedGames)
			}
			if opts.Runs != "" {
				if fi, err := os.Stat(opts.Runs); err != nil || !fi.IsDir() {
					return fmt.Errorf("--runs %s: not a directory", opts.Runs)
				}
			}
			if opts.Player == "" {
				opts.Player = engine.DefaultPlayer(v)
			}
			if err := checkVariant("--player", opts.Player, v, opts.AnyVariant); err != nil {
				return err
			}
			if players != "" {
				opts.Offer = nil
				for _, p := range strings.Split(players, ",") {
					if p = strings.TrimSpace(p); p == "" {
						return fmt.Errorf("--players %q: an empty player in the list", players)
					}
					opts.Offer = append(opts.Offer, p)
				}
			}
			var level slog.Level
			if err := level.UnmarshalText([]byte(logLevel)); err != nil {
				return fmt.Errorf("--log-level: %w", err)
			}
			opts.Variant, opts.Out = v, cmd.OutOrStdout()
			opts.MoveTime, opts.SimsSet = time.Duration(movetime)*time.Millisecond, cmd.Flags().Changed("sims")
			opts.RolloutMix = float32(mix)
			opts.MaxMoveTime = time.Duration(maxMovetime) * time.Millisecond
			opts.MaxStream = time.Duration(maxStream) * time.Millisecond
			opts.Log = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
			if runF != nil {
				return runF(opts)
			}
			return serveRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	opts.BackendFlags.add(f)
	f.StringVar(&opts.Addr, "addr", "127.0.0.1:8080", "HOST:PORT to listen on (loopback unless --allow-remote)")
	f.BoolVar(&opts.AllowRemote, "allow-remote", false, "allow an --addr that is not loopback (the server has no authentication)")
	f.StringVar(&opts.Player, "player", "", "the agent: reference, level:N, random, heuristic, rollout:N, engine:\"CMD\" or a checkpoint file (default: reference, the variant's embedded network)")
	f.StringVar(&players, "players", "", "comma-separated players the page offers as its opponent (default: --player, and level:1 … level:10 when the variant has a reference network)")
	f.StringVar(&opts.GamesDir, "games-dir", defaultGamesDir(), `directory where games are kept across restarts, so that a reload or a shared link resumes them ("" to keep them in memory only)`)
	f.IntVar(&opts.SavedGames, "saved-games", web.DefaultSavedGames, "the most games kept in --games-dir (the least recently played are removed first)")
	f.StringVar(&opts.Runs, "runs", "", "directory of runs to watch and chart (each subdirectory a run: metrics.jsonl, games/; or one run directory)")
	f.IntVar(&opts.Sims, "sims", engine.DefaultSims, "simulations per agent action and per analysis that names none (checkpoint players)")
	f.IntVar(&movetime, "movetime", 0, "milliseconds per agent action for searching players (0: bounded by --sims)")
	f.StringVar(&variant, "variant", "standard", "the default variant of new games: standard or blitz")
	f.Uint64Var(&opts.Seed, "seed", 1, "seed of the agents' random choices")
	f.Float64Var(&mix, "rollout-mix", 0, "checkpoint players' leaf value: (1-λ)·network + λ·random rollout")
	f.BoolVar(&opts.Gumbel, "gumbel", false, "a checkpoint agent searches with Gumbel AlphaZero's root (else PUCT)")
	f.IntVar(&opts.LeavesInFlight, "leaves-in-flight", 8, "leaves a checkpoint agent's search sends per network call")
	f.IntVar(&opts.Searches, "searches", 2, "searches (analyses, agent actions) run at once; more wait in a bounded queue")
	f.IntVar(&opts.MaxSims, "max-sims", web.DefaultMaxSims, "the most simulations one analysis request may ask")
	f.IntVar(&maxStream, "max-stream", int(web.DefaultMaxStream/time.Millisecond), "the longest one continuous analysis (the analysis board's Live) may search, in milliseconds")
	f.IntVar(&maxMovetime, "max-movetime", int(web.DefaultMaxMoveTime/time.Millisecond), "the longest one analysis may search, in milliseconds (whatever it asks)")
	f.StringVar(&logLevel, "log-level", "info", "stderr log level: debug (every request), info, warn or error")
	f.BoolVar(&opts.AnyVariant, "any-variant", false, "accept a checkpoint trained for another variant than --variant")
	return cmd
}

func serveRun(ctx context.Context, opts *ServeOptions) error {
	load, err := opts.loader()
	if err != nil {
		return err
	}
	srv, err := web.New(web.Options{
		Player: opts.Player, Offer: opts.Offer,
		Players:  selfplay.PlayerOptions{Search: opts.Search, Variant: opts.Variant, Parallel: 1, Load: load},
		GamesDir: opts.GamesDir, SavedGames: opts.SavedGames,
		Seed: opts.Seed, Runs: opts.Runs, Searches: opts.Searches, MaxSims: opts.MaxSims, MaxMoveTime: opts.MaxMoveTime,
		MaxStream: opts.MaxStream,
		Logger:    opts.Log, LoopbackHosts: loopback.Addr(opts.Addr),
	})
	if err != nil {
		return err
	}
	defer srv.Close()
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return web.ListenAndServe(ctx, opts.Addr, srv, func(a net.Addr) {
		if !loopback.Addr(a.String()) {
			fmt.Fprintf(opts.Out, "WARNING: serving on %s, not loopback: the server has no authentication; anyone who reaches it can run searches and read %s\n",
				a, map[bool]string{true: "nothing outside the app", false: "the runs under " + opts.Runs}[opts.Runs == ""])
			opts.Log.Warn("serving on a non-loopback address", "addr", a.String())
		}
		fmt.Fprintf(opts.Out, "yinsh serve: http://%s/ (agent %s, variant %s)\n", a, opts.Player, opts.Variant)
		if opts.Ready != nil {
			opts.Ready(a)
		}
	})
}

// defaultGamesDir is where yinsh serve keeps its games by default: DIR/yinsh/games, DIR the user's
// cache directory (YINSH_CACHE_DIR overrides it, as for the reference networks' files), or "" (in
// memory only) when there is none.
func defaultGamesDir() string {
	if d := os.Getenv("YINSH_CACHE_DIR"); d != "" {
		return filepath.Join(d, "games")
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "yinsh", "games")
}
