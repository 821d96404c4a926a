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
		fmt.Printf("%-33v LLR %7.2f [%.2f, %.2f] %-8s Elo %6.1f [%6.1f, %6.1f]\n", r, d.LLR, d.Lower, d.Upper, d.Verdict, elo.Value, elo.Low, elo.High)
	}
	// Output:
	// 1-0-0                             LLR    0.08 [-2.94, 2.94] continue Elo   +Inf [-306.1,   +Inf]
	// 10-0-0                            LLR    0.83 [-2.94, 2.94] continue Elo   +Inf [ 269.7,   +Inf]
	// [1, 10, 78, 48, 13]               LLR   10.87 [-2.94, 2.94] H1       Elo   72.9 [  50.9,   95.9]
	// [100, 250, 300, 250, 100]         LLR  -11.39 [-2.94, 2.94] H0       Elo    0.0 [ -12.3,   12.3]
	// 400-300-300                       LLR    7.03 [-2.94, 2.94] H1       Elo   34.9 [  16.8,   53.0]
	// [1000, 10000, 20000, 10000, 1200] LLR -800.40 [-2.94, 2.94] H0       Elo    1.6 [   0.3,    3.0]
}
