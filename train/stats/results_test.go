package stats

import "testing"

func TestTrinomial(t *testing.T) {
	var tr Trinomial
	for _, r := range []GameResult{Win, Win, Draw, Loss, Win} {
		if err := tr.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	if tr != (Trinomial{Losses: 1, Draws: 1, Wins: 3}) || tr.Games() != 5 || tr.Points() != 3.5 || tr.String() != "3-1-1" {
		t.Errorf("%+v: games %d points %v %s", tr, tr.Games(), tr.Points(), tr)
	}
	if c := tr.Counts(); len(c) != 3 || c[0] != 1 || c[1] != 1 || c[2] != 3 {
		t.Errorf("counts %v, want [L D W] = [1 1 3]", c)
	}
	if err := tr.Add(GameResult(3)); err == nil {
		t.Error("Add(3): want an error")
	}
}

func TestPentanomial(t *testing.T) {
	bins := map[[2]GameResult]int{
		{Loss, Loss}: 0, {Loss, Draw}: 1, {Draw, Loss}: 1,
		{Loss, Win}: 2, {Win, Loss}: 2, {Draw, Draw}: 2,
		{Draw, Win}: 3, {Win, Draw}: 3, {Win, Win}: 4,
	}
	var p Pentanomial
	for pair, want := range bins {
		got, err := PairBin(pair[0], pair[1])
		if err != nil || got != want {
			t.Errorf("PairBin(%d, %d) = %d, %v; want %d", pair[0], pair[1], got, err, want)
		}
		if err := p.AddPair(pair[0], pair[1]); err != nil {
			t.Fatal(err)
		}
	}
	if p != (Pentanomial{1, 2, 3, 2, 1}) || p.Pairs() != 9 || p.Games() != 18 || p.Points() != 9 {
		t.Errorf("%v: pairs %d games %d points %v", p, p.Pairs(), p.Games(), p.Points())
	}
	if p.String() != "[1, 2, 3, 2, 1]" {
		t.Errorf("String %q", p.String())
	}
	if _, err := PairBin(Win, GameResult(-1)); err == nil {
		t.Error("PairBin with an invalid result: want an error")
	}
	if err := p.AddPair(GameResult(5), Win); err == nil || p.Pairs() != 9 {
		t.Error("AddPair with an invalid result must fail and count nothing")
	}
}
