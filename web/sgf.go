package web

import (
	"fmt"
	"strings"
	"time"

	"github.com/yinsh-zero/yinsh/env"
)

// SGFInfo is the header of a written SGF record.
type SGFInfo struct {
	Variant env.Variant
	Players [2]string // white's name, black's
	Date    time.Time
	Name    string
}

// WriteSGF writes actions from the empty board as a boardspace-style YINSH SGF record, the dialect
// env.ReadSGF (and so yinsh replay) reads: P0 is white; a ring move is "place w" (the marker) and
// "drop board" (the ring's end), each action followed by "Done".
func WriteSGF(info SGFInfo, acts []env.Action) string {
	var b strings.Builder
	su := "Yinsh"
	if info.Variant == env.Blitz {
		su = "Yinsh-blitz"
	}
	esc := func(s string) string { return strings.NewReplacer(`\`, `\\`, `]`, `\]`).Replace(s) }
	fmt.Fprintf(&b, "(;\nGM[24]VV[2]\nSU[%s]\nDT[%s]\nGN[%s]\nP0[id \"%s\"]\nP1[id \"%s\"]\n", su,
		info.Date.UTC().Format(time.RFC3339), esc(info.Name), esc(info.Players[0]), esc(info.Players[1]))
	s := env.NewState(info.Variant)
	n := 0
	prop := func(c env.Color, text string) {
		fmt.Fprintf(&b, "; P%d[%d %s]\n", c, n, text)
		n++
	}
	prop(env.White, "Start White")
	pt := func(cell int) string {
		name := env.CellName(cell)
		return strings.ToUpper(name[:1]) + " " + name[1:]
	}
	for _, a := range acts {
		c := s.CurrentPlayer()
		from, to := a.Cells()
		piece := "wb"[c : c+1]
		switch a.Kind() {
		case env.KindPlace:
			prop(c, fmt.Sprintf("place %sr %s", piece, pt(from)))
		case env.KindMove:
			prop(c, fmt.Sprintf("place %s %s", piece, pt(from)))
			prop(c, fmt.Sprintf("drop board %s", pt(to)))
		case env.KindRemoveRow:
			prop(c, fmt.Sprintf("remove %s %s %s", piece, pt(from), pt(to)))
		case env.KindRemoveRing:
			prop(c, fmt.Sprintf("remove %sr %s", piece, pt(from)))
		case env.KindPass:
			prop(c, "pass")
		}
		prop(c, "Done")
		if err := s.ApplyAction(a); err != nil {
			break // the actions come from a checked game; stop at an illegal one rather than write it
		}
	}
	if s.IsTerminal() {
		switch s.Outcome() {
		case env.WhiteWins:
			fmt.Fprintf(&b, "RE[%s wins]\n", esc(info.Players[0]))
		case env.BlackWins:
			fmt.Fprintf(&b, "RE[%s wins]\n", esc(info.Players[1]))
		default:
			b.WriteString("RE[draw]\n")
		}
	}
	b.WriteString(")\n")
	return b.String()
}
