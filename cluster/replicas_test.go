package cluster_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/yinsh-zero/yinsh/cluster"
)

// startNATSCluster starts n clustered nats-servers with JetStream on loopback (file stores under
// dir) and waits until JetStream has a meta leader. It returns the servers and the client URL
// list (comma-separated, as cluster.server and yinsh worker --server take it).
//
// The route ports are chosen before the servers start (each server's routes name all of them), so
// another test can take one in between; a server whose route port is taken never becomes ready.
// Such an attempt is shut down and the cluster started again on fresh ports, up to 3 times.
func startNATSCluster(t *testing.T, dir string, n int) ([]*server.Server, string) {
	t.Helper()
	var errs []string
	for attempt := 1; attempt <= 3; attempt++ {
		ports := make([]int, n)
		for i := range ports {
			ports[i] = freePort(t)
		}
		servers, urls, err := tryNATSCluster(t, filepath.Join(dir, fmt.Sprintf("try%d", attempt)), ports, 10*time.Second)
		if err == nil {
			return servers, urls
		}
		errs = append(errs, fmt.Sprintf("attempt %d: %v", attempt, err))
	}
	t.Fatalf("no NATS cluster started: %s", strings.Join(errs, "; "))
	return nil, ""
}

// tryNATSCluster makes one attempt of startNATSCluster: one server on each route port, each given
// the duration ready to become ready for connections; on an error it has shut its servers down.
func tryNATSCluster(t *testing.T, dir string, ports []int, ready time.Duration) (servers []*server.Server, urls string, err error) {
	n := len(ports)
	var routes []*url.URL
	for _, p := range ports {
		routes = append(routes, &url.URL{Scheme: "nats", Host: fmt.Sprintf("127.0.0.1:%d", p)})
	}
	defer func() {
		if err != nil {
			for _, s := range servers {
				s.Shutdown()
			}
		}
	}()
	var clients []string
	for i := range n {
		ns, err := server.NewServer(&server.Options{
			ServerName: fmt.Sprintf("n%d", i+1), Host: "127.0.0.1", Port: server.RANDOM_PORT,
			JetStream: true, StoreDir: filepath.Join(dir, fmt.Sprintf("n%d", i+1)), NoSigs: true, NoLog: true,
			Cluster: server.ClusterOpts{Name: "yinsh", Host: "127.0.0.1", Port: ports[i]}, Routes: routes,
		})
		if err != nil {
			return servers, "", err
		}
		ns.Start()
		t.Cleanup(ns.Shutdown)
		servers = append(servers, ns)
		if !ns.ReadyForConnections(ready) {
			return servers, "", fmt.Errorf("server n%d (route port %d) did not start in %v", i+1, ports[i], ready)
		}
		clients = append(clients, ns.ClientURL())
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		ready, leader := true, false
		for _, s := range servers {
			ready = ready && s.JetStreamIsClustered() && s.JetStreamIsCurrent()
			leader = leader || s.JetStreamIsLeader()
		}
		if ready && leader {
			return servers, strings.Join(clients, ","), nil
		}
		if time.Now().After(deadline) {
			return servers, "", fmt.Errorf("the NATS cluster elected no JetStream leader in 30 s")
		}
	}
}

// TestNATSClusterTakenRoutePort: the fault startNATSCluster retries on. A route port taken by
// another listener keeps its server from becoming ready; the attempt fails naming that port and
// shuts down the servers it started.
func TestNATSClusterTakenRoutePort(t *testing.T) {
	if testing.Short() {
		t.Skip("starts nats-servers")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	taken := l.Addr().(*net.TCPAddr).Port
	servers, _, err := tryNATSCluster(t, t.TempDir(), []int{freePort(t), taken}, 2*time.Second)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("server n2 (route port %d) did not start", taken)) {
		t.Fatalf("error %v, want server n2 on the taken port %d not started", err, taken)
	}
	if len(servers) != 2 {
		t.Fatalf("%d servers returned, want the 2 started", len(servers))
	}
	for _, s := range servers {
		if s.Running() {
			t.Errorf("server %s still running after the failed attempt", s.Name())
		}
	}
}

// TestReplicatedRunSurvivesAServer: on a cluster of three nats-servers a run with three replicas
// keeps every game and its network when the server leading the games stream dies: the trainer,
// connected to the URL list, reconnects and ingests all the games published before, and the
// network and run info are read from the survivors.
func TestReplicatedRunSurvivesAServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-server NATS cluster")
	}
	dir := t.TempDir()
	servers, urls := startNATSCluster(t, dir, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	tr, err := cluster.OpenTrainer(ctx, cluster.TrainerOptions{Conn: cluster.ConnOptions{URL: urls}, Run: "r3", Fresh: true, Replicas: 3, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	ckpt := tinyCheckpoint(t, dir, 1)
	if err := tr.Publish(ctx, 1, "gen-0001", ckpt, []byte("variant: blitz\n")); err != nil {
		t.Fatal(err)
	}
	n := cluster.NamesFor("r3")
	st, err := tr.JS().Stream(ctx, n.Stream)
	if err != nil {
		t.Fatal(err)
	}
	info := st.CachedInfo()
	if info.Config.Replicas != 3 || info.Cluster == nil || len(info.Cluster.Replicas) != 2 {
		t.Fatalf("games stream: %d replicas configured, cluster %+v", info.Config.Replicas, info.Cluster)
	}
	for _, bucket := range []string{n.KV, n.Workers} {
		kv, err := tr.JS().KeyValue(ctx, bucket)
		if err != nil {
			t.Fatal(err)
		}
		s, err := kv.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if si, ok := s.(interface{ StreamInfo() *jetstream.StreamInfo }); !ok || si.StreamInfo().Config.Replicas != 3 {
			t.Fatalf("bucket %s is not kept by 3 servers: %+v", bucket, s)
		}
	}

	nc, js, err := cluster.Connect(cluster.ConnOptions{URL: urls}, "r3")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	const games = 12
	for i := uint64(1); i <= games; i++ {
		publishRaw(t, js, "r3", cluster.Game{Generation: 1, Worker: "w", Record: randomGame(i, "gen-0001")})
	}
	leader := info.Cluster.Leader
	for _, s := range servers {
		if s.Name() == leader {
			s.Shutdown()
			t.Logf("shut down %s, the games stream's leader", leader)
		}
	}
	got := map[uint64]int{}
	seen := map[uint64]bool{}
	if _, err := tr.Ingest(ctx, cluster.IngestOptions{Generation: 1, Need: games, Seen: seen, Sync: func() error { return nil },
		Append: func(g cluster.Game) error { got[g.Record.ID]++; return nil }}); err != nil {
		t.Fatalf("ingest after losing the leader: %v", err)
	}
	for i := uint64(1); i <= games; i++ {
		if got[i] != 1 {
			t.Fatalf("game %d ingested %d times (all: %v)", i, got[i], got)
		}
	}
	// a worker joining now finds the run and its network on the survivors. Each read is retried
	// with a short deadline: a request sent while a stream elects its new leader can go
	// unanswered for good, and must not spend the whole test's budget.
	var rep cluster.StatusReport
	retry(t, ctx, "the run after losing a server", func(ctx context.Context) (err error) {
		rep, err = cluster.Status(ctx, cluster.ConnOptions{URL: urls}, "r3")
		return err
	})
	if rep.Run.Generation != 1 || rep.Run.Network != "gen-0001" || rep.Counters.Ingested != games {
		t.Fatalf("run after losing a server: %+v", rep)
	}
	var data []byte
	retry(t, ctx, "the network after losing a server", func(ctx context.Context) error {
		obj, err := js.ObjectStore(ctx, n.Objects)
		if err != nil {
			return err
		}
		data, err = obj.GetBytes(ctx, "gen-0001")
		return err
	})
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != rep.Run.SHA256 {
		t.Fatal("the network read from the survivors differs from the one published")
	}
}

// retry calls f with a 5 s deadline until it succeeds or ctx ends, then fails the test with
// f's last error.
func retry(t *testing.T, ctx context.Context, what string, f func(context.Context) error) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := f(actx)
		cancel()
		if err == nil {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("%s: %d attempts, the last: %v", what, attempt, err)
		}
		t.Logf("%s: attempt %d: %v (retrying)", what, attempt, err)
	}
}
