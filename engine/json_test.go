package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/env"
)

// jsonAnswers runs RunJSON over input and returns its answers by id (the raw JSON of the id) and the
// error messages of answers with a null id, in order.
func jsonAnswers(t *testing.T, input string, opts JSONOptions) (map[string]map[string]any, []string) {
	t.Helper()
	var out strings.Builder
	if err := RunJSON(context.Background(), strings.NewReader(input), &out, opts); err != nil {
		t.Fatal(err)
	}
	byID := map[string]map[string]any{}
	var nulls []string
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var raw map[string]json.RawMessage
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			t.Fatalf("answer %q: %v", sc.Text(), err)
		}
		json.Unmarshal(sc.Bytes(), &m)
		id := string(raw["id"])
		if id == "null" {
			nulls = append(nulls, fmt.Sprint(m["error"]))
			continue
		}
		if _, dup := byID[id]; dup {
			t.Errorf("id %s answered twice", id)
		}
		byID[id] = m
	}
	return byID, nulls
}

// randomPositions returns n blitz move lists of random games cut at random plies.
func randomPositions(n int) [][]string {
	rng := rand.New(rand.NewPCG(7, 8))
	out := make([][]string, n)
	for i := range out {
		s := env.NewState(env.Blitz)
		plies := rng.IntN(40)
		var buf []env.Action
		for k := 0; k < plies; k++ {
			buf = s.LegalActions(buf)
			if len(buf) == 0 {
				break
			}
			a := buf[rng.IntN(len(buf))]
			next := *s
			next.ApplyAction(a)
			if next.IsTerminal() {
				break
			}
			*s = next
			out[i] = append(out[i], a.String())
		}
	}
	return out
}

// TestRunJSON sends 50 positions at once and checks that each is answered, by its id, with a legal
// action and the search's statistics.
func TestRunJSON(t *testing.T) {
	games := randomPositions(50)
	var in strings.Builder
	for i, moves := range games {
		id := fmt.Sprint(i)
		if i%2 == 1 {
			id = fmt.Sprintf("%q", fmt.Sprintf("req-%d", i)) // ids of any JSON type
		}
		req := map[string]any{"id": json.RawMessage(id), "moves": moves, "variant": "blitz", "sims": 30 + i, "top": 3}
		if i%5 == 0 {
			s := env.NewState(env.Blitz)
			acts, _ := env.ParseTokens(strings.Join(moves, " "))
			env.Replay(s, acts)
			req = map[string]any{"id": json.RawMessage(id), "position": s.Text(), "variant": "blitz", "movetime": 20}
		}
		b, _ := json.Marshal(req)
		in.Write(b)
		in.WriteString("\n")
	}
	start := time.Now()
	byID, _ := jsonAnswers(t, in.String(), JSONOptions{Player: "rollout:16", Parallel: 4, Seed: 1})
	t.Logf("50 requests in %v", time.Since(start))
	if len(byID) != 50 {
		t.Fatalf("%d answers, want 50", len(byID))
	}
	for i, moves := range games {
		id := fmt.Sprint(i)
		if i%2 == 1 {
			id = fmt.Sprintf("%q", fmt.Sprintf("req-%d", i))
		}
		a, ok := byID[id]
		if !ok {
			t.Errorf("request %s not answered", id)
			continue
		}
		if e, bad := a["error"]; bad {
			t.Errorf("request %s: %v", id, e)
			continue
		}
		s := env.NewState(env.Blitz)
		acts, _ := env.ParseTokens(strings.Join(moves, " "))
		env.Replay(s, acts)
		best, err := env.ParseAction(fmt.Sprint(a["best"]))
		if err != nil || !s.IsLegal(best) || a["side"] != sideName(s.CurrentPlayer()) {
			t.Errorf("request %s: best %v side %v in %s", id, a["best"], a["side"], s.Text())
		}
		visits, sims := a["visits"].(float64), a["sims"].(float64)
		wdl, _ := a["wdl"].([]any)
		top, _ := a["top"].([]any)
		pv, _ := a["pv"].([]any)
		if visits < 1 || sims < 1 || len(wdl) != 3 || len(top) == 0 || len(pv) == 0 || pv[0] == nil {
			t.Errorf("request %s: %v", id, a)
		}
		if i%5 != 0 && (sims < float64(30+i) || len(top) > 3) {
			t.Errorf("request %s: sims %v of %d, %d top", id, sims, 30+i, len(top))
		}
	}
}

func TestRunJSONErrors(t *testing.T) {
	end, outcome := terminalText(t)
	input := strings.Join([]string{
		`{"id":1,`,
		`[1, 2]`,
		`{"moves":["e5"]}`,
		``,
		`{"id":null}`,
		`{"id":2,"frob":1}`,
		`{"id":3,"moves":["e5","e5"]}`,
		`{"id":4,"variant":"chess"}`,
		`{"id":5,"sims":0}`,
		`{"id":6,"position":"` + end + `","variant":"blitz"}`,
		`{"id":7,"position":"nonsense w 0-0"}`,
		`{"id":8,"top":-1}`,
		`{"id":9,"movetime":-5}`,
		`{"id":10,"moves":["zz9"]}`,
		`{"id":"ok","sims":5,"top":0}`,
		strings.Repeat("x", maxJSONLine+5),
		`{"id":11,"sims":3} trailing`,
	}, "\n")
	byID, nulls := jsonAnswers(t, input, JSONOptions{Player: "rollout:5", Parallel: 2})
	wantNull := []string{
		"line 1: bad JSON: unexpected end of JSON input",
		"line 2: want a JSON object (a request), got an array",
		"line 3: the request has no id",
		"line 5: the request has no id",
		"line 16: longer than 1048575 bytes",
		"line 17: bad JSON: invalid character 't' after top-level value",
	}
	if strings.Join(nulls, "\n") != strings.Join(wantNull, "\n") {
		t.Errorf("errors without an id:\n%s\nwant\n%s", strings.Join(nulls, "\n"), strings.Join(wantNull, "\n"))
	}
	want := map[string]string{
		"2":  `bad request: unknown field "frob"`,
		"3":  `moves[1] "e5": illegal action: e5 is occupied`,
		"4":  `variant "chess": want standard or blitz`,
		"5":  "sims 0: want [1, 10000000]",
		"6":  "the game is over (result " + outcome.String() + ")",
		"7":  "position: points field has 8 characters, want 85",
		"8":  "top -1: want [0, 200]",
		"9":  "movetime -5: want milliseconds in [1, 3600000]",
		"10": `moves[0] "zz9": bad action "zz9": bad point "zz9"`,
	}
	for id, msg := range want {
		a, ok := byID[id]
		if !ok {
			t.Errorf("no answer %s", id)
			continue
		}
		if a["error"] != msg {
			t.Errorf("answer %s: %q, want %q", id, a["error"], msg)
		}
	}
	if a := byID[`"ok"`]; a == nil || a["error"] != nil || a["best"] == "" || len(a["top"].([]any)) != 0 {
		t.Errorf("a good request among bad ones: %v", a)
	}
	if len(byID) != len(want)+1 {
		t.Errorf("%d answers, want %d", len(byID), len(want)+1)
	}
}

// TestRunJSONPlayers: a network's trees share one batcher; players that do not search answer their
// action.
func TestRunJSONPlayers(t *testing.T) {
	ck := checkpointFile(t)
	var in strings.Builder
	for i, moves := range randomPositions(8) {
		b, _ := json.Marshal(map[string]any{"id": i, "moves": moves, "variant": "blitz", "sims": 16})
		in.Write(b)
		in.WriteString("\n")
	}
	for _, player := range []string{ck, "heuristic"} {
		byID, nulls := jsonAnswers(t, in.String(), JSONOptions{Player: player, Parallel: 4, Variant: env.Blitz, Load: loadGonum})
		if len(byID) != 8 || len(nulls) != 0 {
			t.Fatalf("%s: %d answers, errors %v", player, len(byID), nulls)
		}
		for id, a := range byID {
			if a["error"] != nil || a["best"] == "" || (player == ck) != (a["wdl"] != nil) {
				t.Errorf("%s: answer %s: %v", player, id, a)
			}
		}
	}
	if err := RunJSON(context.Background(), strings.NewReader(""), io.Discard, JSONOptions{Player: "rollout:x"}); err == nil {
		t.Error("a bad player spec accepted")
	}
}

// TestRunJSONCancel: RunJSON returns soon after its context ends, even while its input is open and
// a long search runs.
func TestRunJSONCancel(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- RunJSON(ctx, r, io.Discard, JSONOptions{Player: "rollout:5", Parallel: 1}) }()
	searching := make(chan struct{})
	testHookJSONSearch = func() { close(searching) }
	defer func() { testHookJSONSearch = nil }()
	io.WriteString(w, `{"id":1,"movetime":60000}`+"\n")
	<-searching // the long search runs
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("RunJSON after cancel: %v", err)
		}
	case <-time.After(time.Minute): // a hang guard, not a timing check: it returns within a chunk
		t.Fatal("RunJSON did not return after its context ended")
	}
}

// TestRunJSONRefusesAnotherVariantsNetwork: a request of another variant than the network's gets an
// error answer naming both variants instead of a search by the wrong network (the reference of the
// analyser's variant; before, a blitz request to a standard analyser was searched by the standard
// network), while a request of the network's variant is answered.
func TestRunJSONRefusesAnotherVariantsNetwork(t *testing.T) {
	in := `{"id":1,"moves":[],"variant":"blitz","sims":4}` + "\n" + `{"id":2,"moves":[],"sims":4}` + "\n"
	byID, nulls := jsonAnswers(t, in, JSONOptions{Player: "reference", Parallel: 1, Variant: env.Standard, Load: loadGonum})
	if len(nulls) != 0 {
		t.Fatalf("null-id errors: %v", nulls)
	}
	msg, _ := byID["1"]["error"].(string)
	if !strings.Contains(msg, "variant blitz") || !strings.Contains(msg, "trained for standard") {
		t.Errorf("blitz request to a standard reference analyser: %v", byID["1"])
	}
	if _, bad := byID["2"]["error"]; bad || byID["2"]["best"] == nil {
		t.Errorf("standard request: %v", byID["2"])
	}
}
