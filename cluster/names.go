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

// Reply inboxes. nats.go receives every reply (JetStream API answers, publish acks, a pull
// consumer's deliveries, an ordered consumer's messages) on subjects under one prefix per
// connection, by default _INBOX, shared by every client: a worker allowed to subscribe to _INBOX.>
// reads the trainer's deliveries too. Each client of a run therefore takes its own prefix
// (nats.CustomInboxPrefix), and a worker may subscribe under its own prefix only:
//
//	_INBOX_yinsh.RUN.t          the trainer
//	_INBOX_yinsh.RUN.w.WORKER   worker WORKER (its name, made key-safe)
const inboxRoot = "_INBOX_yinsh."

// TrainerInbox is the reply-inbox prefix of run's trainer.
func TrainerInbox(run string) string { return inboxRoot + run + ".t" }

// WorkerInbox is the reply-inbox prefix of worker (its name as workerName makes it) of run.
func WorkerInbox(run, worker string) string { return inboxRoot + run + ".w." + workerName(worker) }

// WorkerInboxAnyRun is WorkerInbox of worker with the run's name a wildcard (the embedded server,
// which serves one run, allows it).
func WorkerInboxAnyRun(worker string) string { return inboxRoot + "*.w." + workerName(worker) }

// workerConnPrefix opens a worker's connection name: "yinsh-worker NAME".
const workerConnPrefix = "yinsh-worker "

// WorkerConnName is the connection name of worker: the embedded server reads the worker's name
// from it (WorkerOfConn) to allow the worker's inbox prefix.
func WorkerConnName(worker string) string { return workerConnPrefix + workerName(worker) }

// WorkerOfConn returns the worker a connection name claims: NAME of "yinsh-worker NAME", or any
// other connection name itself, made key-safe ("worker" for none). A connection of the workers'
// role uses WorkerInbox(run, WorkerOfConn(its name)).
func WorkerOfConn(connName string) string {
	return workerName(strings.TrimPrefix(connName, workerConnPrefix))
}
