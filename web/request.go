package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/yinsh-zero/yinsh/env"
)

// decodeJSON reads one JSON object from r into v, refusing unknown fields and anything after the
// object. An empty body is the empty object. Errors are *httpError with status 400 (the body's
// read errors are returned as they are, for the caller to tell a body too large).
func decodeJSON(r io.Reader, v any) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		data = []byte("{}")
	}
	if data[0] != '{' {
		return errorf(http.StatusBadRequest, "bad request: want a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return errorf(http.StatusBadRequest, "bad JSON at byte %d: %v", se.Offset, se)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return errorf(http.StatusBadRequest, "bad JSON: the body ends inside the object")
		case errors.As(err, &te):
			return errorf(http.StatusBadRequest, "bad request: field %q: want %v, got a JSON %s", te.Field, te.Type, te.Value)
		}
		return errorf(http.StatusBadRequest, "bad request: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return errorf(http.StatusBadRequest, "bad request: data after the JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return errorf(http.StatusBadRequest, "bad request: data after the JSON object")
	}
	return nil
}

// positionRequest is the position part of analyze and replay requests: a position text or the
// empty board, then action tokens.
type positionRequest struct {
	Position string   `json:"position"`
	Moves    []string `json:"moves"`
	// Tokens is a token text (whitespace separated, # comments), an alternative to Moves.
	Tokens  string `json:"tokens"`
	Variant string `json:"variant"`
}

const maxMoves = 4096

// parse returns the start state, the actions and the state after them. Errors are 400s naming the
// field and the ply.
func (p *positionRequest) parse(def env.Variant) (*line, error) {
	v, err := parseVariant(p.Variant, def)
	if err != nil {
		return nil, err
	}
	if len(p.Moves) > 0 && p.Tokens != "" {
		return nil, errorf(http.StatusBadRequest, "give moves or tokens, not both")
	}
	toks := p.Moves
	if p.Tokens != "" {
		ts, err := readTokens(p.Tokens)
		if err != nil {
			return nil, err
		}
		toks = ts
	}
	if len(toks) > maxMoves {
		return nil, errorf(http.StatusBadRequest, "%d moves: at most %d", len(toks), maxMoves)
	}
	return replayTokens(strings.TrimSpace(p.Position), toks, v)
}

func fieldErr(field string, err error) error {
	return errorf(http.StatusBadRequest, "%s: %s", field, tidy(err.Error()))
}
