package cluster

import (
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Exported for the external tests (package cluster_test), which start the embedded server of
// cluster/natsserver: an internal test may not import a package that imports cluster.

// Connect is connect for a client of run that is not the trainer: its inbox is the one the workers'
// role allows a connection of its name (WorkerOfConn).
func Connect(o ConnOptions, run string) (*nats.Conn, jetstream.JetStream, error) {
	return connect(o, WorkerInbox(run, WorkerOfConn(o.Name)))
}

// ConnectInbox is connect.
var ConnectInbox = connect

// Names are a run's JetStream names (names).
type Names struct{ Stream, Subject, Consumer, KV, Objects, Workers string }

// NamesFor is namesFor.
func NamesFor(run string) Names {
	n := namesFor(run)
	return Names{Stream: n.stream, Subject: n.subject, Consumer: n.consumer, KV: n.kv, Objects: n.objects, Workers: n.workers}
}

// JS is the trainer's JetStream context.
func (t *Trainer) JS() jetstream.JetStream { return t.js }

// CredsOptions is c.options.
func CredsOptions(c Creds) ([]nats.Option, error) { return c.options() }

// JoinCommandAddrs is joinCommand: JoinCommand with the host's addresses given.
var JoinCommandAddrs = joinCommand

// RunKey is runKey.
const RunKey = runKey
