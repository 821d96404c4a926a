package cluster

import (
	"fmt"
	"log/slog"
	"strings"
)

// ServerOptions configure an embedded nats-server (cluster/natsserver starts one; cluster itself
// links only the NATS client).
type ServerOptions struct {
	// Dir holds the JetStream file store (in the run directory: the games stream survives a
	// restart of the trainer, and of the server with it).
	Dir string
	// Listen is host:port (port 0: a free one). Any host other than loopback needs WorkerCreds.
	Listen string
	// Run names the run served: the workers' permissions name its stream and buckets.
	Run string
	// WorkerCreds are what workers must present (token, user and password, or an nkey seed, whose
	// public key is then accepted). Zero: workers connect without credentials (loopback only).
	WorkerCreds Creds
	TLS         TLS // the server's certificate and key (and a CA to verify clients' certificates)
	Log         *slog.Logger
}

// EmbeddedServer is a running embedded server as the trainer sees it (cluster/natsserver.Server).
type EmbeddedServer interface {
	URL() string         // the client URL (nats://host:port)
	TrainerCreds() Creds // the credentials of the trainer's role
	Close()              // shuts the server down (the file store keeps the stream)
}

// StartServerFunc starts an embedded server and waits until it accepts connections
// (natsserver.Starter is the one implementation; yinsh train passes it to train.Options).
type StartServerFunc func(ServerOptions) (EmbeddedServer, error)

// WorkerPermissionsConfig returns the workers' permissions for run as a nats-server configuration
// block (a user's "permissions"), for a standalone server (yinsh cluster permissions prints it).
func WorkerPermissionsConfig(run string) string {
	var b strings.Builder
	b.WriteString("permissions: {\n  publish: { allow: [\n")
	for _, s := range workerPublish(namesFor(run)) {
		fmt.Fprintf(&b, "    %q\n", s)
	}
	b.WriteString("  ] }\n  subscribe: { allow: [\"_INBOX.>\"] }\n}\n")
	return b.String()
}

// WorkerPublish lists the subjects a worker of run may publish to (the embedded server's worker
// role allows these and nothing else).
func WorkerPublish(run string) []string { return workerPublish(namesFor(run)) }

func workerPublish(n names) []string {
	return []string{
		n.subject,
		"$KV." + n.workers + ".>",
		"$JS.API.INFO",
		"$JS.API.STREAM.INFO.*",
		"$JS.API.STREAM.MSG.GET.KV_" + n.kv,
		"$JS.API.DIRECT.GET.KV_" + n.kv + ".>",
		"$JS.API.DIRECT.GET.KV_" + n.kv,
		"$JS.API.DIRECT.GET.KV_" + n.workers + ".>",
		"$JS.API.DIRECT.GET.KV_" + n.workers,
		"$JS.API.STREAM.MSG.GET.KV_" + n.workers,
		"$JS.API.DIRECT.GET.OBJ_" + n.objects + ".>",
		"$JS.API.DIRECT.GET.OBJ_" + n.objects,
		"$JS.API.STREAM.MSG.GET.OBJ_" + n.objects,
		"$JS.API.CONSUMER.CREATE.KV_" + n.kv + ".>",
		"$JS.API.CONSUMER.CREATE.KV_" + n.kv,
		"$JS.API.CONSUMER.CREATE.KV_" + n.workers + ".>",
		"$JS.API.CONSUMER.CREATE.KV_" + n.workers,
		"$JS.API.CONSUMER.CREATE.OBJ_" + n.objects + ".>",
		"$JS.API.CONSUMER.CREATE.OBJ_" + n.objects,
		"$JS.API.CONSUMER.DELETE.KV_" + n.kv + ".*",
		"$JS.API.CONSUMER.DELETE.KV_" + n.workers + ".*",
		"$JS.API.CONSUMER.DELETE.OBJ_" + n.objects + ".*",
		"$JS.API.CONSUMER.INFO." + n.stream + "." + n.consumer,
		"$JS.ACK.KV_" + n.kv + ".>",
		"$JS.ACK.OBJ_" + n.objects + ".>",
		"$JS.FC.>",
		"_INBOX.>",
	}
}
