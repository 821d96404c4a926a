// Package stats holds the match statistics of Fishtest (the Stockfish testing framework) and a
// Bradley–Terry rating fit with draws in the style of BayesElo.
//
// # Conventions
//
//   - Every result is from player A's view: a Win is a win for A. A Trinomial counts games
//     (losses, draws, wins); a Pentanomial counts game pairs (two games from the same opening with
//     colours swapped) by the points A scored over the pair: 0, ½, 1, 3/2 or 2, as Fishtest and
//     cutechess/fastchess record them ("Ptnml(0-2)").
//   - A sample is one game (trinomial) or one pair (pentanomial); its value is A's per-game
//     score, bin i/(bins-1): 0, ½, 1 for a game and 0, ¼, ½, ¾, 1 for a pair (the pair's points
//     divided by 2). Means and variances are of these values; the variance of the mean score is
//     Var/N with N the number of samples. Counting per pair is what makes pentanomial intervals
//     honest: the two games of a pair are correlated through their opening, and the variance of
//     the pair score already contains that correlation.
//   - Elo is logistic Elo: a difference d gives the expected score E(d) = 1/(1+10^(-d/400)), and
//     Elo values are E⁻¹ of a score. Normalised Elo (nElo) is (score-0.5)/σ scaled by 800/ln 10,
//     σ the standard deviation of one game's score (for pentanomials, the per-pair σ divided by
//     √2, per game).
//   - Intervals are two-sided 95% intervals (z = Φ⁻¹(0.975) = 1.959963984540054).
//   - Errors start with "stats:".
//
// # Sources
//
// Fishtest's server/fishtest/stats/LLRcalc.py (regularize, results_to_pdf, MLE_expected,
// MLE_t_value, LLR_logistic, LLR_normalized, LLR_alt2), stat_util.py (get_elo, SPRT bounds) and
// its statistics page (nElo with the t_conf interval); Michel Van den Bergh's notes behind them:
// "support_MLE_multinomial.pdf" (the maximum-likelihood distribution with a given expected score,
// Proposition 1.1), "normalized_elo_practical.pdf" (the t-value version) and
// "GSPRT_approximation.pdf" (the normal approximation of the LLR). Ratings follow Rémi Coulom's
// BayesElo (bayeselo): its draw model with drawElo and its prior of virtual draws.
//
// The formulas were reimplemented independently in scripts/stats_reference.py (Python with
// numpy); testdata/reference.json is its output and the tests compare the Go values to it.
//
// # Zero counts
//
// Fishtest adds 1e-3 to each empty bin (LLRcalc.regularize) before it computes an LLR, an Elo
// or an nElo, so that the maximum-likelihood distributions stay inside the simplex. This
// package does the same in GSPRT.LLR, LLRNormalApprox, FishtestElo, NElo and (on request)
// EstimateScore. Elo, the interval meant for reading, does not need it: it is the
// profile-likelihood interval of the raw counts, which is defined for empty bins (see Elo).
package stats
