package engine

import (
	"github.com/yinsh-zero/yinsh/selfplay"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
)

// A checkpoint that records its variant is refused for the other one, at start, by set player and
// by newgame, unless AnyVariant.
func TestCheckpointVariantIsChecked(t *testing.T) {
	cfg, err := model.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	net, err := gonum.New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "blitz.ckpt")
	if err := model.SaveNet(net, path, model.Origin{Variant: env.Blitz}); err != nil {
		t.Fatal(err)
	}
	if _, err := New(Options{Load: loadGonum, Player: path, Search: selfplay.Search{Sims: 2}, Variant: env.Standard}); err == nil || !strings.Contains(err.Error(), "trained for blitz, the game is standard") {
		t.Fatalf("standard engine with a blitz checkpoint: %v", err)
	}
	e, err := New(Options{Load: loadGonum, Player: path, Search: selfplay.Search{Sims: 2}, Variant: env.Blitz})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, ok, text, _ := e.Exec("newgame standard"); ok || !strings.Contains(text, "trained for blitz") {
		t.Errorf("newgame standard: %v %q", ok, text)
	}
	if _, ok, text, _ := e.Exec("genmove"); !ok {
		t.Errorf("the blitz game goes on: %q", text)
	}
	a, err := New(Options{Load: loadGonum, Player: path, Search: selfplay.Search{Sims: 2}, Variant: env.Standard, AnyVariant: true})
	if err != nil {
		t.Fatalf("AnyVariant: %v", err)
	}
	a.Close()
}
