package cluster

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Names of a run's JetStream resources. A run is named by the trainer's run name: by default the
// base name of its run directory, with every character outside [A-Za-z0-9_-] replaced by '_' (NATS
// stream, bucket and subject-token names allow no '.', '*', '>', spaces or path separators).
type names struct {
	run      string
	stream   string // the games stream
	subject  string // subject the games are published on
	consumer string // the trainer's durable pull consumer of the games stream
	kv       string // the run's KV bucket: keys runKey and countersKey (written by the trainer only)
	objects  string // object store of the networks
	workers  string // KV bucket of worker heartbeats (with a TTL)
}

const (
	runKey       = "run"      // RunInfo
	countersKey  = "counters" // Counters
	consumerName = "trainer"
)

// RunName turns a run name or a run directory path into the run's name: a path (anything holding
// a path separator, or "." or "..") names the run by its base name.
func RunName(s string) (string, error) {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, `/\`) || s == "." || s == ".." {
		abs, err := filepath.Abs(s)
		if err != nil {
			return "", err
		}
		s = filepath.Base(abs)
	}
	n := keySafe(s)
	if n == "" || strings.Trim(n, "_") == "" {
		return "", fmt.Errorf("cluster: run name %q: want letters, digits, '_' or '-'", s)
	}
	if len(n) > 64 {
		return "", fmt.Errorf("cluster: run name %q is longer than 64 characters", n)
	}
	return n, nil
}

// keySafe replaces every character of s but ASCII letters, digits, '_' and '-' with '_' (what NATS
// subjects, stream names and KV keys accept).
func keySafe(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

func namesFor(run string) names {
	return names{
		run:      run,
		stream:   "YINSH_" + run + "_GAMES",
		subject:  "yinsh." + run + ".games",
		consumer: consumerName,
		kv:       "yinsh_" + run,
		objects:  "yinsh_" + run + "_nets",
		workers:  "yinsh_" + run + "_workers",
	}
}
