package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ConnOptions say how to reach the server.
type ConnOptions struct {
	URL   string // nats://host:port (several separated by commas)
	Creds Creds
	TLS   TLS
	Name  string // the connection's name (in the server's monitoring; RunWorker sets a worker's, WorkerConnName)
	Log   *slog.Logger
}

// connect opens a connection with JetStream whose replies arrive under the reply-inbox prefix inbox
// (TrainerInbox, WorkerInbox: the server lets a worker subscribe under its own prefix only).
// Refused credentials are an error at once (no retry), naming the server.
func connect(o ConnOptions, inbox string) (*nats.Conn, jetstream.JetStream, error) {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	opts := []nats.Option{nats.Name(o.Name), nats.CustomInboxPrefix(inbox), nats.MaxReconnects(-1), nats.ReconnectWait(250 * time.Millisecond),
		nats.Timeout(5 * time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				o.Log.Warn("cluster: disconnected from the server", "url", o.URL, "err", err)
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) { o.Log.Info("cluster: reconnected", "url", nc.ConnectedUrl()) }),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			if !strings.Contains(err.Error(), inbox+probeSuffix) { // (connect reports that one itself)
				o.Log.Warn("cluster: server error", "err", err)
			}
		}),
	}
	co, err := o.Creds.options()
	if err != nil {
		return nil, nil, err
	}
	to, err := o.TLS.options()
	if err != nil {
		return nil, nil, err
	}
	nc, err := nats.Connect(o.URL, append(append(opts, co...), to...)...)
	if err != nil {
		if errors.Is(err, nats.ErrAuthorization) || strings.Contains(strings.ToLower(err.Error()), "authorization") {
			return nil, nil, fmt.Errorf("cluster: %s refused the credentials (authorization violation): check --creds", o.URL)
		}
		return nil, nil, fmt.Errorf("cluster: cannot connect to %s: %w", o.URL, err)
	}
	if err := probeInbox(nc, o.URL, inbox); err != nil {
		nc.Close()
		return nil, nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return nc, js, nil
}

const probeSuffix = ".probe"

// probeInbox checks that the server lets the client subscribe under its reply inbox: refused, every
// request would wait for its timeout instead (credentials of another run's or another worker's
// user on a standalone server).
func probeInbox(nc *nats.Conn, url, inbox string) error {
	sub, err := nc.SubscribeSync(inbox + probeSuffix)
	if err != nil {
		return fmt.Errorf("cluster: %s: %w", url, err)
	}
	defer sub.Unsubscribe()
	if err := nc.FlushTimeout(5 * time.Second); err != nil {
		return fmt.Errorf("cluster: %s: %w", url, err)
	}
	if err := nc.LastError(); errors.Is(err, nats.ErrPermissionViolation) && strings.Contains(err.Error(), inbox+probeSuffix) {
		return fmt.Errorf("cluster: %s refuses this client's reply inbox %s (permissions violation): these credentials are another run's or another worker's: check --run and --name (yinsh cluster permissions prints a worker's permissions)", url, inbox)
	}
	return nil
}

// bindRun opens the run's KV bucket, or says clearly that there is no such run on the server.
func bindRun(ctx context.Context, js jetstream.JetStream, n names, url string) (jetstream.KeyValue, error) {
	kv, err := js.KeyValue(ctx, n.kv)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, fmt.Errorf("cluster: no run %q on %s (no bucket %s): check --run (the trainer prints the run's name when it starts)", n.run, url, n.kv)
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: run %q on %s: %w", n.run, url, err)
	}
	return kv, nil
}
