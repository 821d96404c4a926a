package env

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func FuzzParseAction(f *testing.F) {
	for _, s := range []string{"e5", "e5-e10", "xe5-e9", "xe5", "pass", "X", "k10-a2", "e5-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		a, err := ParseAction(tok)
		if err != nil {
			return
		}
		b, err := ParseAction(a.String())
		if err != nil || b != a {
			t.Fatalf("%q → %s does not round trip", tok, a)
		}
	})
}

func FuzzParsePosition(f *testing.F) {
	f.Add(NewState(Standard).Text())
	f.Add(blockedPositionText())
	f.Add(strings.Repeat(".", 85) + " w 0-0 mrpe")
	f.Fuzz(func(t *testing.T, text string) {
		for _, v := range []Variant{Standard, Blitz} {
			s, err := ParsePosition(text, v)
			if err != nil {
				continue
			}
			// a parsed position is self-consistent and round trips
			if s.computeHash() != s.Hash() {
				t.Fatal("hash")
			}
			s2, err := ParsePosition(s.Text(), v)
			if err != nil {
				t.Fatalf("%q re-parse: %v", s.Text(), err)
			}
			if s2.Text() != s.Text() {
				t.Fatalf("%q != %q", s2.Text(), s.Text())
			}
			for _, a := range s.LegalActions(nil) {
				c := s.Clone()
				if err := c.ApplyAction(a); err != nil {
					t.Fatalf("legal %s rejected: %v", a, err)
				}
			}
		}
	})
}

// blockedPositionText is a seed with rings and markers.
func blockedPositionText() string {
	return "WB.wbw....BW...........bbbww.......ww........................................WB.. w 0-0"
}

func FuzzReadSGF(f *testing.F) {
	files, _ := os.ReadDir("testdata/boardspace")
	for _, e := range files {
		data, err := os.ReadFile("testdata/boardspace/" + e.Name())
		if err == nil {
			f.Add(string(data))
		}
	}
	f.Add("(;SU[Yinsh-Blitz]; P0[1 place wr  G 2])")
	f.Fuzz(func(t *testing.T, text string) {
		g, err := ReadSGF(strings.NewReader(text))
		if err != nil {
			return
		}
		s := NewState(g.Variant)
		for _, a := range g.Actions {
			if err := s.ApplyAction(a); err != nil {
				t.Fatalf("accepted record does not replay: %v", err)
			}
		}
	})
}

// FuzzActionSequence applies arbitrary action ids: illegal ones must return ErrIllegal and change
// nothing, legal ones keep the state consistent.
func FuzzActionSequence(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 200, 100, 3, 7})
	f.Fuzz(func(t *testing.T, data []byte) {
		s := NewState(Standard)
		var legal []Action
		for i := 0; i+1 < len(data); i += 2 {
			x := int(data[i])<<8 | int(data[i+1])
			var a Action
			legal = s.LegalActions(legal)
			if x&1 == 0 && len(legal) > 0 {
				a = legal[(x>>1)%len(legal)] // mostly legal, so games get deep
			} else {
				a = Action(x>>1) - 10
			}
			before := *s
			err := s.ApplyAction(a)
			if err != nil {
				if !errors.Is(err, ErrIllegal) || *s != before {
					t.Fatalf("bad rejection of %d: %v", a, err)
				}
				continue
			}
			if s.computeHash() != s.Hash() {
				t.Fatal("hash drift")
			}
		}
	})
}
