package cluster_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/cluster"
)

func TestParseCreds(t *testing.T) {
	good := map[string]cluster.Creds{
		"token = abc\n":                        {Token: "abc"},
		"# c\nuser: w\npassword = 'p w'\n":     {User: "w", Password: "p w"},
		"user=w\r\npassword=\"x\"\r\n":         {User: "w", Password: "x"},
		"-----BEGIN NATS USER JWT-----\nabc\n": {JWTFile: "f"},
	}
	for text, want := range good {
		c, err := cluster.ParseCreds([]byte(text), "f")
		if err != nil || c != want {
			t.Errorf("%q: %+v, %v; want %+v", text, c, err, want)
		}
	}
	bad := map[string]string{
		"":                                  "no credentials",
		"token abc":                         "line 1: want key = value",
		"token = a\nuser = b\npassword = c": "more than one kind",
		"user = w":                          "go together",
		"colour = red":                      "line 1: unknown key",
		"token = a\ntoken = b":              "line 2: token given again (first on line 1)",
		"nkey_seed = SXBAD":                 "line 1: nkey_seed",
		"token = ":                          "line 1: token is empty",
	}
	for text, want := range bad {
		if _, err := cluster.ParseCreds([]byte(text), "f"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error with %q", text, err, want)
		}
	}
}

func TestGameRoundTrip(t *testing.T) {
	g := cluster.Game{Generation: 7, Worker: "host-1", Record: randomGame(42, "gen-0007")}
	b, err := cluster.EncodeGame(g)
	if err != nil {
		t.Fatal(err)
	}
	h, err := cluster.ParseGame(b)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := cluster.EncodeGame(h)
	if h.Generation != 7 || h.Worker != "host-1" || h.Record.ID != 42 || !bytes.Equal(b, b2) {
		t.Fatalf("round trip: %+v", h)
	}
	for i := 0; i < len(b); i++ {
		if _, err := cluster.ParseGame(b[:i]); err == nil {
			t.Fatalf("a message cut to %d of %d bytes parsed", i, len(b))
		}
	}
}

func TestRunName(t *testing.T) {
	for in, want := range map[string]string{"quick": "quick", "runs/quick.1": "quick_1", "/a/b/c d/": "c_d", "x-y_z": "x-y_z"} {
		if got, err := cluster.RunName(in); err != nil || got != want {
			t.Errorf("RunName(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "...", "***", strings.Repeat("a", 65)} {
		if got, err := cluster.RunName(in); err == nil {
			t.Errorf("RunName(%q) = %q, want an error", in, got)
		}
	}
}

func FuzzParseGame(f *testing.F) {
	b, _ := cluster.EncodeGame(cluster.Game{Generation: 3, Worker: "w", Record: randomGame(5, "gen-0003")})
	f.Add(b)
	f.Add([]byte("YZG1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := cluster.ParseGame(data)
		if err != nil {
			return
		}
		again, err := cluster.EncodeGame(g)
		if err != nil {
			t.Fatalf("a parsed game does not encode: %v", err)
		}
		h, err := cluster.ParseGame(again)
		if err != nil || h.Generation != g.Generation || h.Worker != g.Worker || h.Record.ID != g.Record.ID {
			t.Fatalf("re-encoded game parses as %+v, %v", h, err)
		}
	})
}

func FuzzParseCreds(f *testing.F) {
	f.Add([]byte("token = abc\n"))
	f.Add([]byte("user = w\npassword = p\n"))
	f.Add([]byte("# x\nnkey_seed = SUAM2TM4ZHUMSHRPB6QKVRGNHH2XSKLNSZWR3XUBJMJHHVCUC6SPLJQEMU\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := cluster.ParseCreds(data, "f")
		if err != nil {
			return
		}
		if c.IsZero() {
			t.Fatal("parsed to no credentials without an error")
		}
		if _, err := cluster.CredsOptions(c); err != nil {
			t.Fatalf("parsed credentials give no connection options: %v", err)
		}
	})
}

func FuzzParseRunInfo(f *testing.F) {
	f.Add([]byte(`{"format":1,"run":"r","generation":2,"network":"gen-0001","sha256":"` + strings.Repeat("ab", 32) + `","size":10,"config":"x","staleness":1,"time":"t"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ri, err := cluster.ParseRunInfo(data)
		if err != nil {
			return
		}
		if ri.Generation < 1 || ri.Network == "" || ri.Size <= 0 {
			t.Fatalf("accepted %+v", ri)
		}
	})
}
