package suggest

import "testing"

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"kitten", "sitting", 3}, {"", "abc", 3}, {"abc", "", 3}, {"sims", "sims", 0}, {"simulations", "sims", 7}, {"flaw", "lawn", 2}} {
		if d := EditDistance(c.a, c.b); d != c.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", c.a, c.b, d, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	for _, c := range []struct{ s, want string }{
		{"simulatons", "simulations"}, {"gams", "games"}, {"zzzzzzzz", ""}, {"games", "games"}, {"", ""}, {"gmaes", "games"},
	} {
		if got := Closest(c.s, []string{"games", "simulations", "parallel"}); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.s, got, c.want)
		}
	}
}
