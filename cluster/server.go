package cluster

import (
	"fmt"
	"log/slog"
	"net"
	"net/url"
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
// With worker "" they are those of a user shared by all the run's workers, who may then read one
// another's reply inboxes (never the trainer's); with a worker's name they are those of that
// worker's own user, which may subscribe under that worker's inbox prefix only (the worker then
// runs with --name worker).
func WorkerPermissionsConfig(run, worker string) string {
	var b strings.Builder
	b.WriteString("permissions: {\n  publish: { allow: [\n")
	for _, s := range workerPublish(namesFor(run)) {
		fmt.Fprintf(&b, "    %q\n", s)
	}
	b.WriteString("  ] }\n  subscribe: { allow: [")
	for i, s := range WorkerSubscribe(run, worker) {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", s)
	}
	b.WriteString("] }\n}\n")
	return b.String()
}

// WorkerSubscribe lists the subjects worker of run may subscribe to: its reply inbox (the
// WorkerInbox prefix); with worker "" those of every worker of run. Every message a worker receives
// comes through its inbox (replies, and the deliveries of the ordered consumers that watch the run
// key and read networks); the trainer's inbox, TrainerInbox, is not among them.
func WorkerSubscribe(run, worker string) []string {
	if worker == "" {
		return []string{inboxRoot + run + ".w.>"}
	}
	return []string{WorkerInbox(run, worker) + ".>"}
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
		// no inbox: a worker answers no requests, and a reply published into the trainer's inbox
		// would be a forged API answer or delivery
	}
}

// JoinCommand is the command that joins a worker to run on the server at url (the embedded
// server's URL, as yinsh train prints it). A server listening on every interface (0.0.0.0, ::)
// has no address a worker could dial under that name: the command then names this host's first
// address that is neither loopback nor link-local and lists the others; without one it says to put
// in the address the workers reach this machine at.
func JoinCommand(run, url string) string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		addrs = nil
	}
	return joinCommand(run, url, addrs)
}

func joinCommand(run, rawURL string, addrs []net.Addr) string {
	plain := fmt.Sprintf("yinsh worker --server %s --run %s", rawURL, run)
	u, err := url.Parse(rawURL)
	if err != nil || strings.Contains(rawURL, ",") {
		return plain
	}
	ip := net.ParseIP(u.Hostname())
	if ip == nil || !ip.IsUnspecified() {
		return plain
	}
	// a wildcard listen of Go's (nats-server's) accepts IPv4 and IPv6 alike: IPv4 first
	var v4, v6 []string
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok || n.IP.IsLoopback() || n.IP.IsLinkLocalUnicast() || n.IP.IsUnspecified() || n.IP.IsMulticast() {
			continue
		}
		d := *u
		d.Host = net.JoinHostPort(n.IP.String(), u.Port())
		if n.IP.To4() != nil {
			v4 = append(v4, d.String())
		} else {
			v6 = append(v6, d.String())
		}
	}
	urls := append(v4, v6...)
	if len(urls) == 0 {
		d := *u
		d.Host = net.JoinHostPort("TRAINER-HOST", u.Port())
		return fmt.Sprintf("yinsh worker --server %s --run %s, TRAINER-HOST replaced by this machine's name or address as the workers reach it", d.String(), run)
	}
	s := fmt.Sprintf("yinsh worker --server %s --run %s", urls[0], run)
	if len(urls) > 1 {
		s += fmt.Sprintf("; the server listens on every interface: %s or this host's name work too", strings.Join(urls[1:], ", "))
	}
	return s
}
