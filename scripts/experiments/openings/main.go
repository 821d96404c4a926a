// Command openings measures how many random ring placements a match's openings should have
// (selfplay.DefaultOpeningPlies; BENCHMARKS.md, "Openings"). For each K it plays a match of game
// pairs between two equal players (rollout:N against rollout:N, different seeds) from K random
// placements, and reports:
//
//	distinct   the share of distinct games (deterministic players need K > 0 for any variety)
//	white      white's score: the first-move advantage the openings leave
//	same       the share of decisive pairs won by the same colour in both games. Between equal
//	           players a pair's games are independent given the opening, so same ≈ ½ + 2·E[(p-½)²]
//	           over the openings' white-win probabilities p: the excess over ½ measures how much
//	           the openings decide the games (a pair then measures the opening, not the players)
//
//	cd scripts/experiments && go run ./openings -variant blitz -pairs 200 -sims 100
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/selfplay"
)

func main() {
	pairs := flag.Int("pairs", 100, "game pairs per K")
	sims := flag.Int("sims", 100, "simulations per action of the rollout players")
	variant := flag.String("variant", "blitz", "standard or blitz")
	ks := flag.String("k", "0,2,4,6,8,10", "opening plies to measure, comma separated")
	seed := flag.Uint64("seed", 1, "match seed")
	flag.Parse()
	v, err := env.ParseVariant(*variant)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	f, err := selfplay.ParsePlayer(fmt.Sprintf("rollout:%d", *sims), selfplay.PlayerOptions{Variant: v})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%s, rollout:%d vs rollout:%d, %d pairs per K\n", v, *sims, *sims, *pairs)
	fmt.Printf("%3s %9s %7s %7s %7s %7s\n", "K", "distinct", "white", "draws", "same", "±")
	for _, field := range strings.Split(*ks, ",") {
		var k int
		if _, err := fmt.Sscan(field, &k); err != nil {
			fmt.Fprintln(os.Stderr, "bad K", field)
			os.Exit(2)
		}
		games := make([]selfplay.GameRecord, 2**pairs)
		_, err := selfplay.Match(context.Background(), f, f, selfplay.MatchOptions{
			Games: 2 * *pairs, Parallel: 2, Seed: *seed, Variant: v, OpeningPlies: k,
			OnGame: func(_ int, _ selfplay.MatchResult, g selfplay.GameRecord) error { games[g.Game] = g; return nil },
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		seen := map[string]bool{}
		var white, draws float64
		same, decisive := 0, 0
		for i, g := range games {
			seen[fmt.Sprint(g.Actions)] = true
			switch g.Outcome {
			case env.WhiteWins:
				white++
			case env.Draw:
				white += 0.5
				draws++
			}
			if i%2 == 1 {
				a, b := games[i-1].Outcome, g.Outcome
				if a != env.Draw && b != env.Draw {
					decisive++
					if a == b {
						same++
					}
				}
			}
		}
		n := float64(len(games))
		p := float64(same) / float64(max(decisive, 1))
		se := 0.0
		if decisive > 0 {
			se = 1.96 * math.Sqrt(p*(1-p)/float64(decisive))
		}
		fmt.Printf("%3d %9.3f %7.3f %7.3f %7.3f %7.3f\n", k, float64(len(seen))/n, white/n, draws/n, p, se)
	}
}
