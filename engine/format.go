package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// The text forms of answers shared by the commands.

// formatWDL prints the decision's win/draw/loss for the side to act, or "unknown".
func formatWDL(d selfplay.Decision) string {
	if !d.HasValue {
		return "unknown"
	}
	return fmt.Sprintf("%.3f %.3f %.3f", d.WDL[0], d.WDL[1], d.WDL[2])
}

// writeTop writes up to n lines "top TOKEN prior P visits V q Q" (q is "-" for unvisited actions).
func writeTop(b *strings.Builder, top []selfplay.ActionStat, n int) {
	for _, st := range top[:min(n, len(top))] {
		fmt.Fprintf(b, "\ntop %s prior %.4f visits %d q %s", st.Action, st.Prior, st.Visits, formatQ(st))
	}
}

func writePV(b *strings.Builder, pv []env.Action) {
	if len(pv) > 0 {
		b.WriteString("\npv ")
		b.WriteString(joinActions(pv))
	}
}

func joinActions(acts []env.Action) string {
	var b strings.Builder
	b.Grow(len(acts) * 7)
	for i, a := range acts {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a.String())
	}
	return b.String()
}

func sideName(c env.Color) string { return string("wb"[c]) }

// formatQ prints a candidate's mean value with 3 decimals, or "-" when it has no visits.
func formatQ(st selfplay.ActionStat) string {
	if st.Visits == 0 {
		return "-"
	}
	q := strconv.FormatFloat(float64(st.Q), 'f', 3, 32)
	if q == "-0.000" {
		q = "0.000"
	}
	return q
}
