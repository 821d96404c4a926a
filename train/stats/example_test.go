package stats_test

import (
	"fmt"

	"github.com/yinsh-zero/yinsh/train/stats"
)

func ExampleGSPRT() {
	// Is the new network at least 30 Elo stronger (H1) or not stronger at all (H0)?
	test := stats.GSPRT{Elo0: 0, Elo1: 30, Alpha: 0.05, Beta: 0.05}
	for _, r := range []stats.Results{
		stats.Trinomial{Wins: 1},                            // one game is no evidence
		stats.Trinomial{Wins: 10},                           // nor are ten wins
		stats.Pentanomial{1, 10, 78, 48, 13},                // 150 pairs, mostly won
		stats.Pentanomial{100, 250, 300, 250, 100},          // 1000 balanced pairs
		stats.Trinomial{Losses: 300, Draws: 300, Wins: 400}, // 1000 games, +35 Elo
		stats.Pentanomial{1000, 10000, 20000, 10000, 1200},  // Fishtest-size, +1.6 Elo
	} {
		d, err := test.Test(r)
		if err != nil {
			panic(err)
		}
		elo, _ := stats.Elo(r)
		fmt.Printf("%-28v LLR %7.2f [%.2f, %.2f] %-8s Elo %6.1f [%6.1f, %6.1f]\n", r, d.LLR, d.Lower, d.Upper, d.Verdict, elo.Value, elo.Low, elo.High)
	}
	// Output:
}
