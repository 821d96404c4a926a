package protocol_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/engine"
	"github.com/yinsh-zero/yinsh/selfplay/protocol"
)

func TestClean(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"   ", ""},
		{"name\n", "name"},
		{"name\r\n", "name"},
		{"1 play e5 # a comment", "1 play e5"},
		{"# only a comment", ""},
		{"\tplay\te5\t", "play e5"},
		{"pl\x00ay e\x075\x7f", "play e5"},
		{"  genmove  ", "genmove"},
		{"a\x01#b", "a"},
		{"caf\u00e9 \t", "caf\u00e9"},
	} {
		if got := protocol.Clean(c.in); got != c.want {
			t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// script exercises every shape of answer: ids, errors, multi-line results, showboard's leading line
// break, blank and comment lines (no answer), an overlong line, a malformed id, a missing newline at
// the end.
func script() string {
	lines := []string{
		"protocol_version",
		"1 name",
		"",
		"# comment",
		"   \t  ",
		"2 list_commands",
		"3 newgame blitz",
		"4 play e5 f6",
		"5 play e5",
		"6 frobnicate",
		"1a name",
		"7 showboard",
		"8\tgenmove_info # comment",
		"9 eval 3",
		"10 set",
		strings.Repeat("x", protocol.MaxLine+10),
		"11 help play",
		"12 legal",
		"13 moves",
		"14 undo 5",
		"15 position",
		"16",
		"GENMOVE",
		"17 position W....bw.......ww....BbWbwbb..B.wbb.b..Wbbwbbw...wwwwbbbW.....bb......BbB.....wW...B.. w 0-0",
		"18 genmove",
		"19 turn",
		"20 moves",
	}
	return strings.Join(lines, "\n") + "\n21 result"
}

func newEngine(t testing.TB) *engine.Engine {
	t.Helper()
	e, err := engine.New(engine.Options{Player: "random", Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestWriteAnswerMatchesEngine: a server made of ReadLine, Exec and WriteAnswer writes the bytes the
// engine's own Run writes.
func TestWriteAnswerMatchesEngine(t *testing.T) {
	var want bytes.Buffer
	if err := newEngine(t).Run(strings.NewReader(script()), &want); err != nil {
		t.Fatal(err)
	}
	e := newEngine(t)
	var got bytes.Buffer
	br := bufio.NewReaderSize(strings.NewReader(script()), protocol.MaxLine)
	for {
		line, tooLong, err := protocol.ReadLine(br)
		if err != nil && err != io.EOF {
			t.Fatal(err)
		}
		if tooLong {
			if err := protocol.WriteAnswer(&got, "", false, protocol.TooLongMessage); err != nil {
				t.Fatal(err)
			}
		} else if id, ok, text, answered := e.Exec(string(line)); answered {
			protocol.WriteAnswer(&got, id, ok, text)
		}
		if err == io.EOF {
			break
		}
	}
	if maskTime(got.String()) != maskTime(want.String()) {
		t.Fatalf("answers differ:\n--- got\n%s\n--- engine.Run\n%s", got.String(), want.String())
	}
	if !strings.Contains(want.String(), "line too long") || !strings.Contains(want.String(), "=7 \n11 ") {
		t.Fatalf("script lost its point:\n%s", want.String())
	}
}

// TestReadAnswerEngine parses engine.Run's output with ReadAnswer and compares with what Exec returned
// and with the engine package's own reader.
func TestReadAnswerEngine(t *testing.T) {
	var out bytes.Buffer
	if err := newEngine(t).Run(strings.NewReader(script()), &out); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		ok       bool
		id, text string
	}
	var want []answer
	e := newEngine(t)
	br := bufio.NewReaderSize(strings.NewReader(script()), protocol.MaxLine)
	for {
		line, tooLong, err := protocol.ReadLine(br)
		if tooLong {
			want = append(want, answer{false, "", protocol.TooLongMessage})
		} else if id, ok, text, answered := e.Exec(string(line)); answered {
			if ok {
				text = strings.TrimRight(text, " \n")
			} else {
				text = strings.Join(strings.Fields(text), " ")
			}
			want = append(want, answer{ok, id, text})
		}
		if err != nil {
			break
		}
	}
	r := bufio.NewReader(bytes.NewReader(out.Bytes()))
	r2 := bufio.NewReader(bytes.NewReader(out.Bytes()))
	for i, w := range want {
		ok, id, text, err := protocol.ReadAnswer(r)
		if err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		if got := (answer{ok, id, maskTime(text)}); got != (answer{w.ok, w.id, maskTime(w.text)}) {
			t.Errorf("answer %d = %+v, want %+v", i, got, w)
		}
		a, err := engine.ReadAnswer(r2)
		if err != nil || a.OK != ok || a.ID != id || a.Text != text {
			t.Errorf("answer %d: engine.ReadAnswer = %+v, %v; ReadAnswer = %v %q %q", i, a, err, ok, id, text)
		}
	}
	if _, _, _, err := protocol.ReadAnswer(r); err != io.EOF {
		t.Errorf("after the last answer: %v, want io.EOF", err)
	}
}

func TestReadAnswerErrors(t *testing.T) {
	for _, c := range []struct {
		in   string
		want error
	}{
		{"", io.EOF},
		{"\n\n\n", io.EOF},
		{"= partial", io.ErrUnexpectedEOF},
		{"=1 line\nmore\n", io.ErrUnexpectedEOF},
		{"hello\n\n", protocol.ErrProtocol},
		{"\n\n!1 x\n\n", protocol.ErrProtocol},
		{"=" + strings.Repeat("y", protocol.MaxAnswer+1) + "\n\n", protocol.ErrProtocol},
		{strings.Repeat("=1 "+strings.Repeat("z", 1000)+"\n", protocol.MaxAnswer/1000+1), protocol.ErrProtocol},
	} {
		_, _, _, err := protocol.ReadAnswer(bufio.NewReader(strings.NewReader(c.in)))
		if !errors.Is(err, c.want) {
			t.Errorf("ReadAnswer(%q) error %v, want %v", clipTest(c.in), err, c.want)
		}
	}
	ok, id, text, err := protocol.ReadAnswer(bufio.NewReader(strings.NewReader("\r\n=12 a\r\nb\r\n\r\n")))
	if err != nil || !ok || id != "12" || text != "a\nb" {
		t.Errorf("CRLF answer: %v %q %q %v", ok, id, text, err)
	}
}

var timeMS = regexp.MustCompile(`time_ms [0-9.]+`)

// maskTime hides genmove_info's time_ms, which varies from run to run.
func maskTime(s string) string { return timeMS.ReplaceAllString(s, "time_ms T") }

func clipTest(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"", "1 play e5 # c", "\tname\r\n", "a\x00b\x7fc", "\xff\x01 x", "#", " \u00a0x\u0085"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := protocol.Clean(s)
		if protocol.Clean(c) != c {
			t.Fatalf("Clean not idempotent: %q -> %q -> %q", s, c, protocol.Clean(c))
		}
		if strings.ContainsAny(c, "#\t\n\r") || c != strings.TrimSpace(c) {
			t.Fatalf("Clean(%q) = %q", s, c)
		}
		for i := 0; i < len(c); i++ {
			if c[i] < 32 || c[i] == 127 {
				t.Fatalf("Clean(%q) = %q keeps a control character", s, c)
			}
		}
	})
}

// FuzzReadAnswer reads arbitrary bytes as answers: it must never panic, and an answer it accepts must
// survive being written and read again (after one normalisation by FormatAnswer).
func FuzzReadAnswer(f *testing.F) {
	for _, s := range []string{
		"= 1\n\n", "=7 \n\n", "?3 illegal action \"e5\": e5 is occupied\n\n", "=15 \n11 . .\n 9 . B\n\n",
		"hello\n\n", "\n\n=a\nb\n\n=2 x", "=", "?", "=12345678901234567890 x\n\n", "= a\r\n \r\nb \n\n",
		"=1 a\r \n\n", "?\x00\xff\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReader(bytes.NewReader(data))
		for range 100 {
			ok, id, text, err := protocol.ReadAnswer(r)
			if err != nil {
				return
			}
			for _, c := range id {
				if c < '0' || c > '9' {
					t.Fatalf("id %q", id)
				}
			}
			// Two rounds of write and read reach a fixed point that keeps ok and id.
			once := roundTrip(t, ok, id, text)
			twice := roundTrip(t, ok, id, once)
			if thrice := roundTrip(t, ok, id, twice); thrice != twice {
				t.Fatalf("no fixed point: %q -> %q -> %q -> %q", text, once, twice, thrice)
			}
			if !ok && strings.Contains(once, "\n") {
				t.Fatalf("error message %q spans lines", once)
			}
		}
	})
}

func roundTrip(t *testing.T, ok bool, id, text string) string {
	t.Helper()
	b := protocol.FormatAnswer(id, ok, text)
	ok2, id2, text2, err := protocol.ReadAnswer(bufio.NewReader(strings.NewReader(b)))
	if err != nil || ok2 != ok || id2 != id {
		t.Fatalf("FormatAnswer(%q, %v, %q) = %q reads back as %v %q %q, %v", id, ok, text, b, ok2, id2, text2, err)
	}
	return text2
}
