// Package cluster is distributed self-play over NATS JetStream: the trainer's side publishes every
// promoted network (object store) and the run's generation and settings (a KV bucket) and consumes
// the games workers publish (a stream read by a durable pull consumer, acknowledged only after the
// games are durable in the shards); the worker's side watches the KV, fetches the network it names
// (checksum verified), plays games with the run's settings and publishes each finished game with its
// id as Nats-Msg-Id, so a retried publish is stored once. An embedded nats-server (the subpackage
// natsserver, which cmd/yinsh wires into `yinsh train`, so that this package and train link only
// the NATS client) serves a run from inside `yinsh train`; any nats-server with JetStream serves it
// as well.
//
// One file per concept: names.go (a run's subjects, streams and buckets, and its clients' reply
// inboxes), message.go (the game message), creds.go (credentials and TLS), server.go (the embedded
// server's options, the workers' permissions and the join command), trainer.go (publish networks,
// ingest games), worker.go, status.go.
//
// The package plays no games itself: a worker is given a Play function (train provides it), so
// cluster does not import train.
package cluster
