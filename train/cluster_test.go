package train

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/cluster"
)

// TestEmbeddedNeedsAStarter: cluster.server = embedded without Options.StartServer (train links
// no server; cmd/yinsh passes natsserver.Starter, tested there by TestTrainLocalWorkers) is refused
// with a message saying so, before any generation runs.
func TestEmbeddedNeedsAStarter(t *testing.T) {
	cfg := tinyConfig(t, 1)
	cfg.Cluster = ClusterConfig{Server: "embedded", Listen: "127.0.0.1:0", LocalWorkers: 1}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	err := Train(context.Background(), Options{Dir: dir, Config: cfg, Backend: gonumBackend, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err == nil || !strings.Contains(err.Error(), "no embedded nats-server") {
		t.Fatalf("Train without a server starter: %v", err)
	}
	started := false
	o := Options{Dir: filepath.Join(t.TempDir(), "run"), Config: cfg, Backend: gonumBackend, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		StartServer: func(so cluster.ServerOptions) (cluster.EmbeddedServer, error) {
			started = true
			if so.Listen != "127.0.0.1:0" || so.Run != "run" || !strings.HasSuffix(so.Dir, "nats") {
				t.Errorf("server options %+v", so)
			}
			return nil, errors.New("no server here")
		}}
	if err := Train(context.Background(), o); !started || err == nil || !strings.Contains(err.Error(), "no server here") {
		t.Fatalf("Train with a failing starter: started %v, %v", started, err)
	}
}

func TestClusterConfig(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"cluster.server=bogus", "cluster.server"},
		{"cluster.local_workers=2", "cluster.server is empty"},
		{"cluster.server=embedded,cluster.listen=0.0.0.0:4222", "worker_creds"},
		{"cluster.server=embedded,cluster.listen=nope", "cluster.listen"},
		{"cluster.server=nats://h:4222,cluster.listen=127.0.0.1:1", "embedded server"},
		{"cluster.server=embedded,cluster.run=a.b", "cluster.run"},
		{"cluster.server=embedded,cluster.staleness=-1", "cluster.staleness"},
		{"cluster.server=embedded,cluster.replicas=3", "the embedded server is one"},
		{"cluster.server=nats://h:4222,cluster.replicas=6", "cluster.replicas"},
		{"cluster.replicas=3", "cluster.server is empty"},
	} {
		_, err := ParseConfig(nil, "t", strings.Split(tc.set, ","))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %s", tc.set, err, tc.want)
		}
	}
	cfg, err := ParseConfig([]byte("cluster:\n  server: embedded\n  local_workers: 2\n"), "t", nil)
	if err != nil || cfg.Cluster.LocalWorkers != 2 {
		t.Fatalf("%+v %v", cfg.Cluster, err)
	}
	if cfg, err := ParseConfig(nil, "t", []string{"cluster.server=nats://a:4222,nats://b:4222", "cluster.replicas=3"}); err != nil || cfg.Cluster.Replicas != 3 {
		t.Fatalf("replicas on an external cluster: %+v %v", cfg.Cluster, err)
	}
	if _, err := ParseConfig([]byte("cluster:\n  server: embedded\n  workers: 2\n"), "t", nil); err == nil || !strings.Contains(err.Error(), "line 3: cluster.workers: unknown key") {
		t.Fatalf("unknown cluster key: %v", err)
	}
	plain := tinyConfig(t, 1)
	y, _ := plain.YAML()
	if strings.Contains(string(y), "cluster") {
		t.Fatalf("a single-process config mentions the cluster:\n%s", y)
	}
}
