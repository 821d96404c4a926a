package train

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/datasets"
)

// TestTrainCluster runs the loop with its self-play played by two in-process workers through the
// embedded server: every generation gets its games, each recorded once, counted by source.
func TestTrainCluster(t *testing.T) {
	cfg := tinyConfig(t, 2)
	cfg.Cluster = ClusterConfig{Server: "embedded", Listen: "127.0.0.1:0", LocalWorkers: 2, WorkerParallel: 2, Staleness: 1}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run.1")
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	if err := Train(ctx, Options{Dir: dir, Config: cfg, Backend: gonumBackend, Out: &out, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}); err != nil {
		t.Fatal(err)
	}
	st := checkRun(t, dir)
	if st.Games != 8 {
		t.Fatalf("state counts %d games, want 8", st.Games)
	}
	ids := map[uint64]int{}
	gens := map[string]int{}
	if err := datasets.ScanDir(filepath.Join(dir, gamesDir), func(_ string, _ int, r *datasets.Record) error {
		ids[r.ID]++
		gens[r.Generator]++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 8 || gens["gen-0001"] != 4 || gens["gen-0002"] != 4 {
		t.Fatalf("shards: %d distinct games, by generation %v; want 8, 4 and 4", len(ids), gens)
	}
	for id, n := range ids {
		if n != 1 {
			t.Errorf("game %x recorded %d times", id, n)
		}
	}
	text := out.String()
	for _, want := range []string{"cluster: run run_1 on nats://127.0.0.1:", "gen 1/2: self-play 4 games", "by source local-"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	ms, err := ReadMetrics(filepath.Join(dir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		n := 0
		for _, c := range m.SelfPlay.Sources {
			n += c
		}
		if n != 4 {
			t.Errorf("generation %d: sources %v, want 4 games", m.Generation, m.SelfPlay.Sources)
		}
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
