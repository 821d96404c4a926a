package web

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/yinsh-zero/yinsh/nets"
	"github.com/yinsh-zero/yinsh/selfplay"
	"github.com/yinsh-zero/yinsh/selfplay/protocol"
)

// offered is one opponent a new game may choose (GET /api/info's "opponents").
type offered struct {
	Spec    string `json:"player"`          // the spec POST /api/games takes as "player"
	Label   string `json:"label"`           // what the page's selector shows: "Level 3"
	About   string `json:"about,omitempty"` // one line on what it plays
	Default bool   `json:"default,omitempty"`
}

// DefaultOffer is the opponents a server offers without Options.Offer: its player, and the
// strength levels level:1 … level:10 when variant v has a reference network and players can load
// it (load).
func DefaultOffer(player string, po selfplay.PlayerOptions) []string {
	out := []string{player}
	if nets.Has(po.Variant) && po.Load != nil {
		for n := 1; n <= selfplay.MaxLevel; n++ {
			out = append(out, fmt.Sprintf("%s%d", selfplay.LevelPrefix, n))
		}
	}
	return out
}

// makeOffer checks the specs a server offers (nil: DefaultOffer) and labels them, the player
// first. Each is checked by its form only (rollout:N's N, level:N's N, a checkpoint file that
// exists): its players are opened on a game's first need.
func makeOffer(player string, specs []string, po selfplay.PlayerOptions) ([]offered, error) {
	if specs == nil {
		specs = DefaultOffer(player, po)
	}
	if !contains(specs, player) {
		specs = append([]string{player}, specs...)
	}
	seen := map[string]bool{}
	var out []offered
	for _, spec := range specs {
		if seen[spec] {
			continue
		}
		seen[spec] = true
		o, err := offerOf(spec, po)
		if err != nil && spec != player {
			return nil, err
		}
		if err != nil { // the server's player: New opens it now and reports what is wrong with it
			o.Label = spec
		}
		o.Default = spec == player
		if o.Default { // the server's agent first
			out = append([]offered{o}, out...)
		} else {
			out = append(out, o)
		}
	}
	return out, nil
}

// offerOf checks one offered spec and labels it.
func offerOf(spec string, po selfplay.PlayerOptions) (offered, error) {
	o := offered{Spec: spec}
	switch {
	case spec == "":
		return o, fmt.Errorf("web: players: an empty player spec")
	case spec == "random":
		o.Label, o.About = "Random", "a uniformly random legal move"
	case spec == "heuristic":
		o.Label, o.About = "Heuristic", "a hand-written one-ply heuristic"
	case strings.HasPrefix(spec, "rollout:"):
		n, err := selfplay.ParseRollout(spec)
		if err != nil {
			return o, fmt.Errorf("web: players: %w", err)
		}
		o.Label, o.About = fmt.Sprintf("Rollout MCTS (%d simulations)", n), "tree search with random playouts, no network"
	case selfplay.IsLevel(spec):
		n, err := selfplay.ParseLevel(spec)
		if err != nil {
			return o, fmt.Errorf("web: players: %w", err)
		}
		if !nets.Has(po.Variant) || po.Load == nil {
			return o, fmt.Errorf("web: players: %s plays the reference network, and there is none for %s games here", spec, po.Variant)
		}
		lv := selfplay.Levels[n-1]
		o.Label, o.About = fmt.Sprintf("Level %d", n), lv.Recipe()
		if r := lv.Rating(po.Variant); r.Known() {
			o.About += fmt.Sprintf("; Elo %.0f (random 0, yinsh levels)", r.Elo)
		}
	case spec == nets.Reference:
		if !nets.Has(po.Variant) || po.Load == nil {
			return o, fmt.Errorf("web: players: reference: there is no reference network for %s games here", po.Variant)
		}
		o.Label, o.About = "Reference network", "the embedded reference network of the game's variant, searched"
	case strings.HasPrefix(spec, protocol.SpecPrefix):
		o.Label, o.About = "Engine "+strings.Trim(strings.TrimPrefix(spec, protocol.SpecPrefix), `"`), "an external engine"
	default: // a checkpoint file, opened on first need: it must be there now
		fi, err := os.Stat(spec)
		if err != nil {
			return o, fmt.Errorf("web: players: %s: not a player spec (reference, level:N, random, heuristic, rollout:N, engine:\"CMD\") nor a checkpoint file: %w", spec, err)
		}
		if !fi.Mode().IsRegular() {
			return o, fmt.Errorf("web: players: %s: not a regular file", spec)
		}
		o.Label, o.About = "Network "+filepath.Base(spec), "a checkpoint"
	}
	return o, nil
}

// opponent returns the offered spec a create request names ("" for the server's player), and a
// 400 naming the field for any other.
func (s *Server) opponent(spec string) (string, error) {
	if spec == "" {
		return s.opts.Player, nil
	}
	var names []string
	for _, o := range s.offer {
		if o.Spec == spec {
			return spec, nil
		}
		names = append(names, o.Spec)
	}
	return "", errorf(http.StatusBadRequest, "player %q: not one this server offers (GET /api/info's opponents: %s)", spec, strings.Join(names, ", "))
}

// nameOf is the name the player of an offered spec goes by in messages: the server's agent's
// name for its player, else the spec.
func (s *Server) nameOf(spec string) string {
	if spec == s.opts.Player {
		return s.agent
	}
	return spec
}
