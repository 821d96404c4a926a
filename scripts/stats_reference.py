#!/usr/bin/env python3
"""Reference values for the Go package train/stats, from an independent implementation.

Reimplements, from the published formulas, the match statistics of Fishtest
(server/fishtest/stats/LLRcalc.py and stat_util.py, Michel Van den Bergh's GSPRT notes
"support_MLE_multinomial.pdf" and "normalized_elo_practical.pdf") and prints a JSON document of
cases -> values on stdout. Its output is committed as train/stats/testdata/reference.json and
compared with the Go values by train/stats/reference_test.go; under CI that test also re-runs this
script and checks that its output still matches the committed file.

Needs only Python 3 and numpy (no scipy: the root finders are plain bisections).

Conventions (the same as the Go package):
  * results are from player A's view; a trinomial is [losses, draws, wins], a pentanomial the
    number of game pairs in which A scored 0, 1/2, 1, 3/2, 2 points;
  * a "sample" is a game (trinomial) or a pair (pentanomial); its value is the per-game score,
    bin i / (bins-1): 0, 1/2, 1 or 0, 1/4, 1/2, 3/4, 1;
  * logistic Elo, E(d) = 1 / (1 + 10^(-d/400));
  * Fishtest's regularisation: an empty bin gets the count 1e-3 (LLRcalc.regularize).

Values:
  score          N, mean and variance of the regularised sample distribution (LLRcalc.stats)
  fishtest_elo   stat_util.get_elo: Elo of the mean, half-width of the Wald 95% interval mapped
                 through the inverse of E, LOS (all on regularised counts, scores clamped to
                 [1e-3, 1-1e-3] as stat_util.elo does)
  elo            the profile-likelihood 95% interval on the raw counts (the set of expected
                 scores p the likelihood ratio test does not reject: 2*(l(phat) - l(q_p)) <= z^2,
                 q_p the maximum-likelihood distribution with mean p), with the Elo of the raw mean
  nelo           normalised Elo and its 95% interval as Fishtest's statistics page (t_conf)
  llr            exact GSPRT log-likelihood ratios (LLR_logistic / LLR_normalized) and the
                 normal approximation LLR_alt2, for several (elo0, elo1)

Infinite values are written as the strings "+Inf" / "-Inf" (JSON has no infinity).

Usage: python3 scripts/stats_reference.py > train/stats/testdata/reference.json
"""
import json
import math
import sys

import numpy as np

Z975 = 1.959963984540054  # Phi^-1(0.975)
EPSILON = 1e-3  # LLRcalc.regularize
NELO_PER_NT = 800 / math.log(10)  # LLRcalc.nelo_divided_by_nt


def expected_score(elo):
    return 1 / (1 + 10 ** (-elo / 400))


def elo_of_score(s):
    if s <= 0:
        return -math.inf
    if s >= 1:
        return math.inf
    return -400 * math.log10(1 / s - 1)


def fishtest_clamped_elo(s):
    """stat_util.elo: the score is clamped to [1e-3, 1-1e-3] first."""
    s = min(max(s, 1e-3), 1 - 1e-3)
    return -400 * math.log10(1 / s - 1)


def phi(x):
    return 0.5 * math.erfc(-x / math.sqrt(2))


def bisect_decreasing(f, lo, hi):
    """Root of a decreasing function with f(lo) > 0 > f(hi), to machine precision."""
    for _ in range(3000):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def values(k):
    return np.arange(k, dtype=float) / (k - 1)


def regularized(counts):
    return np.array([c if c > 0 else EPSILON for c in counts], dtype=float)


def distribution(counts):
    """results_to_pdf: total count, values, probabilities (regularised)."""
    n = regularized(counts)
    total = float(n.sum())
    return total, values(len(counts)), n / total


def moments(a, p):
    mu = float(np.dot(p, a))
    d = a - mu
    var = float(np.dot(p, d * d))
    m3 = float(np.dot(p, d**3))
    m4 = float(np.dot(p, d**4))
    return mu, var, m3 / var**1.5, m4 / var**2 - 3


def lagrange_mle(a, p, b):
    """Maximise sum p_i log q_i over distributions q with sum q_i b_i = 0, all p_i > 0.

    Stationarity of the Lagrangian gives q_i = p_i / (1 + x b_i), the multiplier x the root of
    the secular equation sum p_i b_i / (1 + x b_i) = 0 on the interval where every 1 + x b_i > 0.
    """
    if not (b.min() < 0 < b.max()):
        raise ValueError("constraint outside the support")

    def f(x):
        return float(np.sum(p * b / (1 + x * b)))

    x = bisect_decreasing(f, -1 / b.max(), -1 / b.min())
    q = p / (1 + x * b)
    assert abs(q.sum() - 1) < 1e-9
    return q


def mle_expected(a, p, s):
    q = lagrange_mle(a, p, a - s)
    assert abs(float(np.dot(q, a)) - s) < 1e-9
    return q


def mle_t_value(a, p, ref, t):
    """Maximum-likelihood distribution with (mean - ref) / sd = t: fixed point of the Lagrange
    conditions with the constraint linearised at the current mean and sd."""
    q = np.full(len(a), 1 / len(a))
    for _ in range(1000):
        mu, var, _, _ = moments(a, q)
        sd = math.sqrt(var)
        b = a - ref - t * sd * (1 + ((a - mu) / sd) ** 2) / 2
        q_new = lagrange_mle(a, p, b)
        done = float(np.max(np.abs(q_new - q))) < 1e-11
        q = q_new
        if done:
            break
    else:
        raise RuntimeError("t-value MLE did not converge")
    mu, var, _, _ = moments(a, q)
    assert abs((mu - ref) / math.sqrt(var) - t) < 1e-9
    return q


def llr_logistic(elo0, elo1, counts):
    total, a, p = distribution(counts)
    q0 = mle_expected(a, p, expected_score(elo0))
    q1 = mle_expected(a, p, expected_score(elo1))
    return total * float(np.dot(p, np.log(q1) - np.log(q0)))


def llr_normalized(nelo0, nelo1, counts):
    total, a, p = distribution(counts)
    scale = 1.0 if len(counts) == 3 else math.sqrt(2)
    t0, t1 = nelo0 / NELO_PER_NT * scale, nelo1 / NELO_PER_NT * scale
    q0 = mle_t_value(a, p, 0.5, t0)
    q1 = mle_t_value(a, p, 0.5, t1)
    return total * float(np.dot(p, np.log(q1) - np.log(q0)))


def llr_alt2(elo0, elo1, counts):
    total, a, p = distribution(counts)
    mu, var, _, _ = moments(a, p)
    s0, s1 = expected_score(elo0), expected_score(elo1)
    return total * (s1 - s0) * (2 * mu - s0 - s1) / var / 2


def score(counts):
    total, a, p = distribution(counts)
    mu, var, _, _ = moments(a, p)
    return {"n": total, "mean": mu, "var": var}


def fishtest_elo(counts):
    total, a, p = distribution(counts)
    mu, var, _, _ = moments(a, p)
    se = math.sqrt(var / total)
    lo, hi = mu - Z975 * se, mu + Z975 * se
    return {
        "elo": fishtest_clamped_elo(mu),
        "elo95": (fishtest_clamped_elo(hi) - fishtest_clamped_elo(lo)) / 2,
        "los": phi((mu - 0.5) / se),
    }


def nelo(counts):
    if sum(counts) == 0:
        return {"value": 0.0, "low": -math.inf, "high": math.inf}
    total, a, p = distribution(counts)
    mu, var, skew, exkurt = moments(a, p)
    t = (mu - 0.5) / math.sqrt(var)
    var_t = max(1 - t * skew + 0.25 * t * t * (exkurt + 2), 0)
    half = Z975 * math.sqrt(var_t / total)
    c = NELO_PER_NT if len(counts) == 3 else NELO_PER_NT / math.sqrt(2)
    return {"value": c * t, "low": c * (t - half), "high": c * (t + half)}


def profile_loglik_ratio(counts, s):
    """l(phat) - max { l(q) : q a distribution over all bins with mean s }, raw counts.

    Primal, case by case: either the maximiser lives on the observed bins (Lagrange solution on
    them, valid when s is strictly inside their range and no unobserved bin would get a negative
    denominator), or it puts the missing mass on the unobserved extreme bin (value 0 or 1) and
    the multiplier sits at the boundary where that bin's denominator vanishes.
    """
    n = np.array(counts, dtype=float)
    total = n.sum()
    a = values(len(counts))
    obs = n > 0
    ao, po = a[obs], n[obs] / total
    bo = ao - s
    if bo.min() < 0 < bo.max():
        q = lagrange_mle(ao, po, bo)
        # recover the multiplier from any bin with b != 0: q = p / (1 + x b)
        i = int(np.argmax(np.abs(bo)))
        x = (po[i] / q[i] - 1) / bo[i]
        unobserved_b = a[~obs] - s
        if np.all(1 + x * unobserved_b >= 0):
            return float(np.dot(n[obs], np.log(po / q)))
    # the mass missing from the observed bins goes to the extreme bin on the far side of s
    if s < float(np.dot(po, ao)):
        e = 0.0  # bin with value 0, unobserved
    else:
        e = 1.0
    x = -1 / (e - s)
    q = po / (1 + x * bo)
    assert q.sum() <= 1 + 1e-12
    return float(np.dot(n[obs], np.log(po / q)))


def profile_interval(counts):
    total = sum(counts)
    if total == 0:
        return {"value": 0.0, "low": -math.inf, "high": math.inf}
    a = values(len(counts))
    mean = float(np.dot(np.array(counts, dtype=float), a)) / total
    crit = Z975 * Z975 / 2
    if mean == 0:
        low = -math.inf
    else:
        p = bisect_decreasing(lambda s: profile_loglik_ratio(counts, s) - crit, 0.0, mean)
        low = elo_of_score(p)
    if mean == 1:
        high = math.inf
    else:
        p = bisect_decreasing(lambda s: crit - profile_loglik_ratio(counts, s), mean, 1.0)
        high = elo_of_score(p)
    return {"value": elo_of_score(mean), "low": low, "high": high}


STANDARD_PAIRS = [(0, 30), (0, 5), (-3, 1)]
STANDARD_NORMALIZED = [(0, 2), (0, 5)]


def trinomial(name, w, d, l, source="", logistic=(), normalized=()):
    return {"name": name, "kind": "trinomial", "counts": [l, d, w], "source": source,
            "logistic": list(logistic), "normalized": list(normalized)}


def pentanomial(name, counts, source="", logistic=(), normalized=()):
    return {"name": name, "kind": "pentanomial", "counts": list(counts), "source": source,
            "logistic": list(logistic), "normalized": list(normalized)}


FISHTEST = "Fishtest server/fishtest/stats/stat_util.py __main__ (inputs only)"
FASTCHESS = ("fastchess match output quoted in the Zeno chess engine's SPRT notes "
             "(github.com/Toudonou/zeno); printed values checked by TestWorkedExamples")

CASES = [
    trinomial("no games", 0, 0, 0),
    trinomial("1-0-0 (W-D-L)", 1, 0, 0),
    trinomial("0-1-0", 0, 1, 0),
    trinomial("0-0-1", 0, 0, 1),
    trinomial("3-2-1", 3, 2, 1),
    trinomial("10-0-0", 10, 0, 0),
    trinomial("50-0-0", 50, 0, 0),
    trinomial("0-0-10", 0, 0, 10),
    trinomial("0-20-0", 0, 20, 0),
    trinomial("400-300-300", 400, 300, 300),
    trinomial("5019-15699-5026", 5019, 15699, 5026, FISHTEST),
    trinomial("13543-34333-13624", 13543, 34333, 13624, FISHTEST),
    trinomial("65388-56553-65804", 65388, 56553, 65804, FISHTEST),
    pentanomial("one 2-0 pair", [0, 0, 0, 0, 1]),
    pentanomial("ten 2-0 pairs", [0, 0, 0, 0, 10]),
    pentanomial("twenty 1-1 pairs", [0, 0, 20, 0, 0]),
    pentanomial("balanced", [100, 250, 300, 250, 100]),
    pentanomial("clearly winning", [20, 150, 400, 500, 300]),
    pentanomial("Fishtest-like", [1000, 10000, 20000, 10000, 1200]),
    pentanomial("Fishtest 65388-56553-65804", [10789, 19328, 33806, 19402, 10543], FISHTEST),
    pentanomial("Fishtest 13543-34333-13624", [1187, 7410, 13475, 7378, 1164], FISHTEST),
    pentanomial("Fishtest high-draw", [39, 2226, 31451, 2412, 40], FISHTEST,
                logistic=[(0.2, 0.9)], normalized=[(0.764, 3.439)]),
    pentanomial("fastchess C1 vs C5", [0, 0, 1, 8, 1],
                "fastchess output quoted in a public test log", logistic=[(0, 50)],
                normalized=[(0, 50)]),
    pentanomial("fastchess plus vs minus", [0, 1, 0, 1, 0],
                "fastchess output quoted in a public test suite"),
    pentanomial("fastchess sf19-smallnet", [1, 10, 78, 48, 13],
                "fastchess output quoted in a public README"),
    pentanomial("Zeno doubled-passed-pawns", [352, 579, 1264, 743, 464], FASTCHESS,
                logistic=[(9, 16)], normalized=[(9, 16)]),
    pentanomial("Zeno check extensions", [120, 246, 645, 386, 302], FASTCHESS,
                logistic=[(40, 45)], normalized=[(40, 45)]),
    pentanomial("Zeno TT conditions", [200, 557, 1005, 643, 249], FASTCHESS),
    pentanomial("Zeno history heuristic", [224, 309, 874, 347, 246], FASTCHESS,
                logistic=[(0, 2)], normalized=[(0, 2)]),
]


def encode(x):
    if isinstance(x, float) and math.isinf(x):
        return "+Inf" if x > 0 else "-Inf"
    if isinstance(x, dict):
        return {k: encode(v) for k, v in x.items()}
    if isinstance(x, list):
        return [encode(v) for v in x]
    return x


def main():
    out = []
    for case in CASES:
        counts = case["counts"]
        rec = {
            "name": case["name"],
            "kind": case["kind"],
            "counts": counts,
        }
        if case["source"]:
            rec["source"] = case["source"]
        rec["score"] = score(counts)
        rec["fishtest_elo"] = fishtest_elo(counts)
        rec["elo"] = profile_interval(counts)
        rec["nelo"] = nelo(counts)
        llr = []
        for elo0, elo1 in STANDARD_PAIRS + [tuple(p) for p in case["logistic"]]:
            llr.append({"model": "logistic", "elo0": float(elo0), "elo1": float(elo1),
                        "llr": llr_logistic(elo0, elo1, counts),
                        "llr_alt2": llr_alt2(elo0, elo1, counts)})
        for elo0, elo1 in STANDARD_NORMALIZED + [tuple(p) for p in case["normalized"]]:
            llr.append({"model": "normalized", "elo0": float(elo0), "elo1": float(elo1),
                        "llr": llr_normalized(elo0, elo1, counts)})
        rec["llr"] = llr
        out.append(rec)
    doc = {
        "generator": "scripts/stats_reference.py",
        "z975": Z975,
        "regularize_epsilon": EPSILON,
        "cases": out,
    }
    json.dump(encode(doc), sys.stdout, indent=1, sort_keys=True, allow_nan=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
