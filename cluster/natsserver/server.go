// Package natsserver is the embedded nats-server with JetStream that serves a run from inside
// yinsh train. It is the only package that links github.com/nats-io/nats-server/v2: cmd/yinsh
// passes Starter to train.Options, so train and cluster link the NATS client only.
package natsserver

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"

	"github.com/yinsh-zero/yinsh/cluster"
	"github.com/yinsh-zero/yinsh/internal/loopback"
)

// Server is a running embedded nats-server with JetStream.
type Server struct {
	ns      *server.Server
	url     string
	trainer cluster.Creds
}

// trainerUser is the embedded server's user of the trainer (full permissions); its password is
// random per server start and never leaves the process.
const trainerUser = "yinsh-trainer"

// Start starts an embedded nats-server with JetStream (file store in o.Dir) and waits until
// it accepts connections.
func Start(o cluster.ServerOptions) (*Server, error) {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	host, portText, err := net.SplitHostPort(o.Listen)
	if err != nil {
		return nil, fmt.Errorf("cluster.listen %q: want host:port (%v)", o.Listen, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("cluster.listen %q: bad port", o.Listen)
	}
	if !loopback.Host(host) && o.WorkerCreds.IsZero() {
		return nil, fmt.Errorf("cluster.listen %q is not a loopback address: workers from other machines need credentials (set cluster.worker_creds)", o.Listen)
	}
	if o.WorkerCreds.JWTFile != "" {
		return nil, errors.New("cluster.worker_creds: a NATS .creds file (JWT) needs an operator-run nats-server; the embedded server takes a token, a user and password or an nkey seed")
	}
	if err := o.TLS.Check(); err != nil {
		return nil, err
	}
	pw := make([]byte, 24)
	if _, err := rand.Read(pw); err != nil {
		return nil, err
	}
	trainer := cluster.Creds{User: trainerUser, Password: hex.EncodeToString(pw)}
	auth := &authenticator{trainer: trainer, worker: o.WorkerCreds, run: o.Run}
	if o.WorkerCreds.NkeySeed != "" {
		if auth.workerNkey, err = nkeyPublic(o.WorkerCreds.NkeySeed); err != nil {
			return nil, err
		}
	}
	opts := &server.Options{
		ServerName: "yinsh-" + o.Run, Host: host, Port: port,
		// a stored game reaches the operating system before its publish is acknowledged (a killed
		// server loses none); the store is fsynced every second (nats-server's default: 2 minutes),
		// so a crash of the machine loses at most the last second's games. Fsyncing every game
		// (SyncAlways) costs 10× the broker's throughput here (BENCHMARKS.md)
		JetStream: true, StoreDir: o.Dir, SyncInterval: time.Second,
		NoSigs: true, NoLog: true, MaxPayload: 8 << 20,
		CustomClientAuthentication: auth, AlwaysEnableNonce: true,
	}
	if port == 0 {
		opts.Port = server.RANDOM_PORT
	}
	if o.TLS.Cert != "" {
		tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: o.TLS.Cert, KeyFile: o.TLS.Key, CaFile: o.TLS.CA})
		if err != nil {
			return nil, fmt.Errorf("cluster.tls: %w", err)
		}
		opts.TLSConfig, opts.TLS = tc, true
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("cluster: embedded server: %w", err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, fmt.Errorf("cluster: embedded server on %s did not start within 10 s", o.Listen)
	}
	s := &Server{ns: ns, url: ns.ClientURL(), trainer: trainer}
	o.Log.Info("cluster: embedded nats-server listening", "url", s.url, "store", o.Dir, "run", o.Run)
	return s, nil
}

// URL is the client URL of the server (nats://host:port).
func (s *Server) URL() string { return s.url }

// TrainerCreds are the credentials of the trainer's role.
func (s *Server) TrainerCreds() cluster.Creds { return s.trainer }

// Close shuts the server down (the file store keeps the stream).
func (s *Server) Close() {
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
}

// authenticator gives the trainer's credentials every permission and the workers' credentials the
// workers' (the same whether they are a token, a user and password or an nkey), each worker's
// connection subscribing under the inbox prefix of the worker its connection name claims.
type authenticator struct {
	trainer    cluster.Creds
	worker     cluster.Creds
	workerNkey string
	run        string
}

func eq(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

func (a *authenticator) Check(c server.ClientAuthentication) bool {
	o := c.GetOpts()
	switch {
	case o.Username == a.trainer.User && eq(o.Password, a.trainer.Password):
		c.RegisterUser(&server.User{Username: trainerUser})
		return true
	case a.worker.IsZero():
		if o.Username != "" || o.Password != "" || o.Token != "" || o.Nkey != "" {
			return false // credentials where none are expected are a misconfiguration: refuse them
		}
	case a.worker.Token != "":
		if !eq(o.Token, a.worker.Token) {
			return false
		}
	case a.worker.User != "":
		if !eq(o.Username, a.worker.User) || !eq(o.Password, a.worker.Password) {
			return false
		}
	case a.workerNkey != "":
		if o.Nkey != a.workerNkey || !verifyNonce(o.Nkey, o.Sig, c.GetNonce()) {
			return false
		}
	default:
		return false
	}
	c.RegisterUser(&server.User{Username: "yinsh-worker", Permissions: workerPermissions(a.run, cluster.WorkerOfConn(o.Name))})
	return true
}

func verifyNonce(pub, sig string, nonce []byte) bool {
	kp, err := nkeys.FromPublicKey(pub)
	if err != nil || len(nonce) == 0 {
		return false
	}
	s, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil {
		if s, err = base64.StdEncoding.DecodeString(sig); err != nil {
			return false
		}
	}
	return kp.Verify(nonce, s) == nil
}

// workerPermissions are those of worker's connection: it publishes games and its heartbeat, reads
// the run's KV and networks (cluster.WorkerPublish lists the subjects), and subscribes under its
// own reply-inbox prefix only (cluster.WorkerInbox): it may not write the trainer's keys or
// networks, create, change, purge or delete streams, read or delete the trainer's consumer, or
// read or write the trainer's or another worker's inbox. The workers share their credentials, so
// the worker's name is the one its connection claims: a holder of the workers' credentials that
// claims another worker's name reads that worker's inbox, which carries only what every worker may
// read (docs/distributed.md). The inbox is allowed under any run's name: the server serves one run
// (the permissions name its stream and buckets), and a worker that names another run is then
// answered that there is no such run.
func workerPermissions(run, worker string) *server.Permissions {
	return &server.Permissions{
		Publish:   &server.SubjectPermission{Allow: cluster.WorkerPublish(run)},
		Subscribe: &server.SubjectPermission{Allow: []string{cluster.WorkerInboxAnyRun(worker) + ".>"}},
	}
}

// Starter is Start as a cluster.StartServerFunc (for train.Options.StartServer).
func Starter(o cluster.ServerOptions) (cluster.EmbeddedServer, error) {
	s, err := Start(o)
	if err != nil {
		return nil, err // not a nil *Server in a non-nil interface
	}
	return s, nil
}

// nkeyPublic returns the public key of the seed.
func nkeyPublic(seed string) (string, error) {
	kp, err := nkeys.FromSeed([]byte(seed))
	if err != nil {
		return "", err
	}
	return kp.PublicKey()
}
