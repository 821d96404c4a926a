package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// Creds are the credentials a client presents: a token, a user and password, an nkey seed, or a
// NATS .creds file (a user JWT and its seed, for servers run with an operator). At most one kind.
type Creds struct {
	Token    string
	User     string
	Password string
	NkeySeed string // an nkey user seed ("SU…")
	JWTFile  string // path of a NATS .creds file
}

// IsZero reports whether no credentials are set.
func (c Creds) IsZero() bool { return c == Creds{} }

// jwtMarker opens a NATS .creds file (nsc writes them).
const jwtMarker = "-----BEGIN NATS USER JWT-----"

// LoadCreds reads a credentials file (see ParseCreds).
func LoadCreds(path string) (Creds, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Creds{}, fmt.Errorf("cluster: credentials: %w", err)
	}
	c, err := ParseCreds(data, path)
	if err != nil {
		return c, err
	}
	if c.JWTFile != "" {
		c.JWTFile = path
	}
	return c, nil
}

// ParseCreds parses credentials text (name labels errors): either a NATS .creds file (it holds
// "-----BEGIN NATS USER JWT-----"), or lines of key = value (or key: value), blank lines and
// #-comments allowed, with the keys token, user, password and nkey_seed:
//
//	# a worker of run quickstart
//	user = worker
//	password = 9b1f…
//
// One kind of credentials per file: token, user with password, or nkey_seed.
func ParseCreds(data []byte, name string) (Creds, error) {
	var c Creds
	if bytes.Contains(data, []byte(jwtMarker)) {
		c.JWTFile = name
		return c, nil
	}
	seen := map[string]int{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if j := strings.IndexByte(line, ':'); j >= 0 && (!ok || j < len(k)) {
			k, v, ok = line[:j], line[j+1:], true
		}
		if !ok {
			return Creds{}, fmt.Errorf("cluster: %s: line %d: want key = value", name, i+1)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		if v == "" {
			return Creds{}, fmt.Errorf("cluster: %s: line %d: %s is empty", name, i+1, k)
		}
		if strings.ContainsAny(v, " \t\x00") && k != "password" {
			return Creds{}, fmt.Errorf("cluster: %s: line %d: %s holds a space or a NUL", name, i+1, k)
		}
		if l, dup := seen[k]; dup {
			return Creds{}, fmt.Errorf("cluster: %s: line %d: %s given again (first on line %d)", name, i+1, k, l)
		}
		seen[k] = i + 1
		switch k {
		case "token":
			c.Token = v
		case "user":
			c.User = v
		case "password":
			c.Password = v
		case "nkey_seed":
			kp, err := nkeys.FromSeed([]byte(v))
			if err != nil {
				return Creds{}, fmt.Errorf("cluster: %s: line %d: nkey_seed: %v", name, i+1, err)
			}
			pub, _ := kp.PublicKey()
			if !nkeys.IsValidPublicUserKey(pub) {
				return Creds{}, fmt.Errorf("cluster: %s: line %d: nkey_seed is not a user seed (SU…)", name, i+1)
			}
			c.NkeySeed = v
		default:
			return Creds{}, fmt.Errorf("cluster: %s: line %d: unknown key %q (want token, user, password or nkey_seed)", name, i+1, k)
		}
	}
	kinds := 0
	for _, set := range []bool{c.Token != "", c.User != "" || c.Password != "", c.NkeySeed != ""} {
		if set {
			kinds++
		}
	}
	switch {
	case kinds == 0:
		return Creds{}, fmt.Errorf("cluster: %s: no credentials (want token, user and password, or nkey_seed)", name)
	case kinds > 1:
		return Creds{}, fmt.Errorf("cluster: %s: more than one kind of credentials (token, user/password, nkey_seed): give one", name)
	case (c.User == "") != (c.Password == ""):
		return Creds{}, fmt.Errorf("cluster: %s: user and password go together", name)
	}
	return c, nil
}

// options are the connection options presenting c.
func (c Creds) options() ([]nats.Option, error) {
	switch {
	case c.JWTFile != "":
		return []nats.Option{nats.UserCredentials(c.JWTFile)}, nil
	case c.Token != "":
		return []nats.Option{nats.Token(c.Token)}, nil
	case c.User != "":
		return []nats.Option{nats.UserInfo(c.User, c.Password)}, nil
	case c.NkeySeed != "":
		kp, err := nkeys.FromSeed([]byte(c.NkeySeed))
		if err != nil {
			return nil, err
		}
		pub, err := kp.PublicKey()
		if err != nil {
			return nil, err
		}
		return []nats.Option{nats.Nkey(pub, func(nonce []byte) ([]byte, error) { return kp.Sign(nonce) })}, nil
	}
	return nil, nil
}

// TLS are TLS settings, passed through to the server (embedded) or the client: a CA to verify the
// other side, and a certificate with its key.
type TLS struct {
	CA   string `yaml:"ca"`   // PEM file of the certificate authority
	Cert string `yaml:"cert"` // PEM certificate file
	Key  string `yaml:"key"`  // PEM key file
}

// IsZero reports whether no TLS setting is set.
func (t TLS) IsZero() bool { return t == TLS{} }

// Check reports a certificate without its key or a key without its certificate.
func (t TLS) Check() error {
	if (t.Cert == "") != (t.Key == "") {
		return errors.New("cluster: tls: cert and key go together")
	}
	return nil
}

func (t TLS) options() ([]nats.Option, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	var o []nats.Option
	if t.CA != "" {
		o = append(o, nats.RootCAs(t.CA))
	}
	if t.Cert != "" {
		o = append(o, nats.ClientCert(t.Cert, t.Key))
	}
	return o, nil
}
