package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/yinsh-zero/yinsh/cluster"
	"github.com/yinsh-zero/yinsh/cluster/natsserver"
	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/train"

	"github.com/yinsh-zero/yinsh/internal/testenv"
)

// The distributed self-play suite drives real processes on loopback: a trainer (yinsh train with
// a cluster section) and three yinsh worker processes. It SIGKILLs a worker mid-game, SIGKILLs the
// trainer mid-generation and resumes it (with the embedded server this restarts the server on its
// file store; with an external one the server is SIGKILLed and restarted too), and checks that
// every game a worker finished is in the shards exactly once or still waiting in the stream (none
// lost), and that the run's counters continue.

// clusterConfig is a tiny run: 3 generations of 6 blitz games at 4 simulations.
func clusterConfig(server string) string {
	return fmt.Sprintf(`variant: blitz
seed: 3
generations: 3
net: {preset: tiny}
selfplay: {games: 6, parallel: 1, batch_size: 8, simulations: 4, gumbel_considered: 4, leaves_in_flight: 1}
training: {steps_per_generation: 2, batch_size: 16, min_positions: 10}
evaluation: {games: 0, baseline_games: 0, ladder: [], anchor_games: 0, simulations: 4, parallel: 2}
cluster: {server: %s, staleness: 100, ack_wait_s: 2}
`, server)
}

type proc struct {
	name string
	cmd  *exec.Cmd
	out  *testenv.SyncBuffer
	done chan error
}

func startProc(t *testing.T, name string, bin string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, cmd: exec.Command(bin, args...), out: &testenv.SyncBuffer{}, done: make(chan error, 1)}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

func (p *proc) kill(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// wait waits for the process to exit within d and returns its error; on a timeout it fails the
// test with the output of p and of the others.
func (p *proc) wait(t *testing.T, d time.Duration, others ...*proc) error {
	t.Helper()
	select {
	case err := <-p.done:
		return err
	case <-time.After(d):
		var b strings.Builder
		for _, o := range others {
			if o != p {
				fmt.Fprintf(&b, "--- %s:\n%s\n", o.name, o.out.String())
			}
		}
		t.Fatalf("%s still running after %v; output:\n%s\n%s", p.name, d, p.out.String(), b.String())
		return nil
	}
}

// waitFor polls cond every 50 ms for up to d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool, procs ...*proc) {
	t.Helper()
	end := time.Now().Add(d)
	for !cond() {
		if time.Now().After(end) {
			var b strings.Builder
			for _, p := range procs {
				fmt.Fprintf(&b, "--- %s:\n%s\n", p.name, p.out.String())
			}
			t.Fatalf("timed out waiting for %s\n%s", what, b.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

var publishedLine = regexp.MustCompile(`msg="cluster: game published".* id=([0-9a-f]{16})`)

// published returns the ids of the games the workers' logs say the server stored.
func published(ws []*proc) map[string]bool {
	ids := map[string]bool{}
	for _, w := range ws {
		for _, m := range publishedLine.FindAllStringSubmatch(w.out.String(), -1) {
			ids[m[1]] = true
		}
	}
	return ids
}

func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// streamIDs returns the ids of the games still in the run's stream (not yet acknowledged).
func streamIDs(t *testing.T, url string, creds cluster.Creds, run string) map[string]bool {
	t.Helper()
	var opts []nats.Option
	if creds.User != "" {
		opts = append(opts, nats.UserInfo(creds.User, creds.Password))
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, "YINSH_"+run+"_GAMES")
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for seq := info.State.FirstSeq; info.State.Msgs > 0 && seq <= info.State.LastSeq; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if err != nil {
			continue // deleted (acknowledged)
		}
		g, err := cluster.ParseGame(m.Data)
		if err != nil {
			t.Fatalf("stream message %d: %v", seq, err)
		}
		ids[cluster.MsgID(g.Record.ID)] = true
	}
	return ids
}

func TestClusterEmbedded(t *testing.T) {
	if testing.Short() {
		t.Skip("process suite (about 30 s)")
	}
	clusterSuite(t, "")
}

// TestClusterExternalServer runs the suite against a standalone nats-server process (Debian's
// nats-server package; .ci/run installs it and sets YINSH_NATS_EXTERNAL=1, which makes it
// mandatory).
func TestClusterExternalServer(t *testing.T) {
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		if os.Getenv("YINSH_NATS_EXTERNAL") == "1" {
			t.Fatal("YINSH_NATS_EXTERNAL=1 but nats-server is not on PATH (apt-get install -y nats-server)")
		}
		t.Skip("nats-server not on PATH (apt-get install -y nats-server, or set YINSH_NATS_EXTERNAL=1 to require it)")
	}
	if testing.Short() {
		t.Skip("process suite (about 30 s)")
	}
	clusterSuite(t, bin)
}

func clusterSuite(t *testing.T, natsServer string) {
	bin := yinshBinary(t)
	root := t.TempDir()
	runDir := filepath.Join(root, "crun")
	port := freeLoopbackPort(t)
	url := fmt.Sprintf("nats://127.0.0.1:%d", port)
	server := "embedded"
	var srv *proc
	startServer := func() *proc {
		p := startProc(t, "nats-server", natsServer, "-c", filepath.Join(root, "nats.conf"))
		waitFor(t, 10*time.Second, "nats-server to listen", func() bool {
			c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
			if err == nil {
				c.Close()
			}
			return err == nil
		}, p)
		return p
	}
	var trainerCreds cluster.Creds
	workerFlags := []string{}
	if natsServer != "" {
		// a standalone server with a trainer and a worker role, the worker's permissions as yinsh
		// cluster permissions prints them (docs/distributed.md)
		conf := fmt.Sprintf("listen: 127.0.0.1:%d\njetstream { store_dir: %q }\nauthorization {\n  users: [\n"+
			"    { user: trainer, password: tpw }\n    { user: worker, password: wpw, %s }\n  ]\n}\n",
			port, filepath.Join(root, "nats-store"), cluster.WorkerPermissionsConfig("crun", ""))
		must(t, os.WriteFile(filepath.Join(root, "nats.conf"), []byte(conf), 0o644))
		must(t, os.WriteFile(filepath.Join(root, "trainer.creds"), []byte("user = trainer\npassword = tpw\n"), 0o600))
		must(t, os.WriteFile(filepath.Join(root, "worker.creds"), []byte("# a worker\nuser = worker\npassword = wpw\n"), 0o600))
		trainerCreds = cluster.Creds{User: "trainer", Password: "tpw"}
		workerFlags = []string{"--creds", filepath.Join(root, "worker.creds")}
		server = url + ", creds: " + filepath.Join(root, "trainer.creds")
		srv = startServer()
	}
	cfgPath := filepath.Join(root, "cluster.yaml")
	cfg := clusterConfig(server)
	if natsServer == "" {
		cfg = strings.Replace(cfg, "ack_wait_s: 2}", fmt.Sprintf("ack_wait_s: 2, listen: \"127.0.0.1:%d\"}", port), 1)
	}
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	trainer := startProc(t, "trainer", bin, "train", "--config", cfgPath, "--run", runDir)
	waitFor(t, 30*time.Second, "the trainer to print its run", func() bool {
		return strings.Contains(trainer.out.String(), "cluster: run crun on "+url)
	}, trainer)

	var workers []*proc
	for i := 1; i <= 3; i++ {
		run := "crun"
		if i == 3 {
			run = runDir // a worker on the same disk names the run by its directory
		}
		workers = append(workers, startProc(t, fmt.Sprintf("worker %d", i), bin, append([]string{"worker", "--server", url, "--run", run,
			"--parallel", "1", "--name", fmt.Sprintf("w%d", i), "--verbose"}, workerFlags...)...))
	}
	all := append([]*proc{trainer}, workers...)
	if srv != nil {
		all = append(all, srv)
	}

	// a worker killed mid-game: its published games stay, the game in progress is lost
	waitFor(t, 60*time.Second, "worker 1 to publish a game", func() bool { return publishedLine.MatchString(workers[0].out.String()) }, all...)
	workers[0].kill(t)

	out, err := exec.Command(bin, append([]string{"cluster", "status", "--server", url, "--run", "crun"}, workerFlags...)...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "workers seen: ") || !strings.Contains(string(out), "stream backlog") {
		t.Fatalf("yinsh cluster status: %v\n%s", err, out)
	}

	// the trainer killed mid-generation (and the server with it, or after it), then resumed
	waitFor(t, 90*time.Second, "generation 1 to finish", func() bool { return strings.Contains(trainer.out.String(), "gen 1/3") }, all...)
	before := len(published(workers))
	waitFor(t, 60*time.Second, "two more games", func() bool { return len(published(workers)) >= before+2 }, all...)
	trainer.kill(t)
	if srv != nil {
		srv.kill(t) // returns once the process has exited (its port and store lock released)
		srv = startServer()
	}
	resumed := startProc(t, "resumed trainer", bin, "train", "--run", runDir, "--resume")
	all = append(all, resumed)
	if err := resumed.wait(t, 120*time.Second, all...); err != nil {
		t.Fatalf("resumed trainer: %v\n%s", err, resumed.out.String())
	}
	for _, w := range workers[1:] {
		if err := w.wait(t, 30*time.Second, all...); err != nil {
			t.Fatalf("%s: %v\n%s", w.name, err, w.out.String())
		}
		if !strings.Contains(w.out.String(), "run crun finished") {
			t.Errorf("%s did not see the run finish:\n%s", w.name, w.out.String())
		}
	}

	// every finished game: in the shards exactly once, or still in the stream
	inShards := map[string]int{}
	gens := map[string]int{}
	if err := datasets.ScanDir(filepath.Join(runDir, "games"), func(_ string, _ int, r *datasets.Record) error {
		inShards[cluster.MsgID(r.ID)]++
		gens[r.Generator]++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for id, n := range inShards {
		if n != 1 {
			t.Errorf("game %s recorded %d times", id, n)
		}
	}
	if len(inShards) != 18 || gens["gen-0001"] != 6 || gens["gen-0002"] != 6 || gens["gen-0003"] != 6 {
		t.Fatalf("shards hold %d games, by generation %v; want 6 each of 3", len(inShards), gens)
	}
	pub := published(workers)
	for id := range inShards {
		if !pub[id] {
			t.Errorf("game %s in the shards was never published", id)
		}
	}
	var waiting map[string]bool
	if srv != nil {
		waiting = streamIDs(t, url, trainerCreds, "crun")
	} else {
		s, err := natsserver.Start(cluster.ServerOptions{Dir: filepath.Join(runDir, "nats"), Listen: "127.0.0.1:0", Run: "crun", Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		waiting = streamIDs(t, s.URL(), s.TrainerCreds(), "crun")
		s.Close()
	}
	lost := 0
	for id := range pub {
		if inShards[id] == 0 && !waiting[id] {
			t.Errorf("game %s was published but is neither in the shards nor in the stream", id)
			lost++
		}
	}
	t.Logf("%d games published, %d in the shards, %d still in the stream, %d lost", len(pub), len(inShards), len(waiting), lost)

	// the counters continue across the kill: three generations, in order, 18 games
	ms, err := train.ReadMetrics(filepath.Join(runDir, train.MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 3 {
		t.Fatalf("%d metrics lines, want 3", len(ms))
	}
	dups := 0
	for i, m := range ms {
		if m.Generation != i+1 || m.SelfPlay.Games != 6 {
			t.Errorf("metrics line %d: generation %d, %d games", i+1, m.Generation, m.SelfPlay.Games)
		}
		dups += m.SelfPlay.Duplicates
	}
	t.Logf("%d redelivered games skipped as already recorded", dups)
	if !strings.Contains(resumed.out.String(), "by source") {
		t.Errorf("the trainer's lines do not show games by source:\n%s", resumed.out.String())
	}
	st, err := os.ReadFile(filepath.Join(runDir, train.StateFile))
	if err != nil || !strings.Contains(string(st), `"games": 18`) {
		t.Errorf("state.json: %v\n%s", err, st)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestClusterRunFlag: --run takes a run's name or its directory, whose config may name the run.
func TestClusterRunFlag(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my.run")
	must(t, os.MkdirAll(dir, 0o755))
	c := ClusterConnFlags{Server: "nats://127.0.0.1:1", Run: dir}
	if run, _, err := c.conn(slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil || run != "my_run" {
		t.Fatalf("run directory without a config: %q, %v; want my_run", run, err)
	}
	must(t, os.WriteFile(filepath.Join(dir, train.ConfigFile), []byte("generations: 1\ncluster:\n  server: embedded\n  run: custom\n"), 0o644))
	if run, _, err := c.conn(slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil || run != "custom" {
		t.Fatalf("run directory with cluster.run: %q, %v; want custom", run, err)
	}
	for _, bad := range []ClusterConnFlags{{Run: "r"}, {Server: "nats://h:1"}, {Server: "nats://h:1", Run: "***"}} {
		if _, _, err := bad.conn(slog.New(slog.NewTextHandler(io.Discard, nil))); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	for _, args := range [][]string{{"worker", "--server", "nats://127.0.0.1:1", "--run", "x", "--parallel", "-1"}, {"cluster", "permissions"}} {
		if _, _, code := runCLI(t, "", args...); code == 0 {
			t.Errorf("%v: exit 0", args)
		}
	}
	// the workers subscribe under their own inbox prefixes only, never nats' shared _INBOX
	out, _, code := runCLI(t, "", "cluster", "permissions", "--run", "runs/dist")
	if code != 0 || !strings.Contains(out, `"yinsh.dist.games"`) || !strings.Contains(out, `subscribe: { allow: ["_INBOX_yinsh.dist.w.>"] }`) || strings.Contains(out, `"_INBOX.>"`) {
		t.Fatalf("cluster permissions: %d\n%s", code, out)
	}
	out, _, code = runCLI(t, "", "cluster", "permissions", "--run", "dist", "--worker", "w 1")
	if code != 0 || !strings.Contains(out, `subscribe: { allow: ["_INBOX_yinsh.dist.w.w_1.>"] }`) {
		t.Fatalf("cluster permissions --worker: %d\n%s", code, out)
	}
	if _, _, code := runCLI(t, "", "cluster", "permissions", "--run", "dist", "--worker", " "); code == 0 {
		t.Error("cluster permissions --worker ' ': exit 0")
	}
}

// TestWorkerRefused: yinsh worker exits non-zero with a clear message for refused credentials and
// for a run the server does not hold.
func TestWorkerRefused(t *testing.T) {
	dir := t.TempDir()
	s, err := natsserver.Start(cluster.ServerOptions{Dir: filepath.Join(dir, "nats"), Listen: "127.0.0.1:0", Run: "r",
		WorkerCreds: cluster.Creds{Token: "right"}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	good, bad := filepath.Join(dir, "good.creds"), filepath.Join(dir, "bad.creds")
	must(t, os.WriteFile(good, []byte("token = right\n"), 0o600))
	must(t, os.WriteFile(bad, []byte("token = wrong\n"), 0o600))
	for _, tc := range []struct {
		creds, want string
	}{
		{bad, "refused the credentials"},
		{good, `no run "nope"`},
	} {
		_, errs, code := runCLI(t, "", "worker", "--server", s.URL(), "--run", "nope", "--creds", tc.creds)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("--creds %s: exit %d, stderr %q; want %q", filepath.Base(tc.creds), code, errs, tc.want)
		}
		_, errs, code = runCLI(t, "", "cluster", "status", "--server", s.URL(), "--run", "nope", "--creds", tc.creds)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("status --creds %s: exit %d, stderr %q; want %q", filepath.Base(tc.creds), code, errs, tc.want)
		}
	}
}

// TestTrainLocalWorkers: yinsh train wires the embedded server (cluster/natsserver) into train:
// every generation's self-play is played by two in-process workers through it, each game recorded
// once and counted by source.
func TestTrainLocalWorkers(t *testing.T) {
	dir := t.TempDir()
	cfgPath, runDir := filepath.Join(dir, "local.yaml"), filepath.Join(dir, "run.1")
	must(t, os.WriteFile(cfgPath, []byte(`variant: blitz
generations: 2
selfplay: {games: 4, parallel: 4, simulations: 8, gumbel_considered: 4}
training: {steps_per_generation: 3, batch_size: 16, min_positions: 10}
evaluation: {games: 2, simulations: 4, parallel: 2, gate: score, baseline_games: 2, baselines: [random]}
cluster: {server: embedded, listen: "127.0.0.1:0", local_workers: 2, worker_parallel: 2, staleness: 1}
`), 0o644))
	out, errs, code := runCLI(t, "", "train", "--config", cfgPath, "--run", runDir)
	if code != 0 {
		t.Fatalf("train: exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"cluster: run run_1 on nats://127.0.0.1:", "gen 1/2: self-play 4 games", "by source local-"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	ids := map[uint64]int{}
	gens := map[string]int{}
	must(t, datasets.ScanDir(filepath.Join(runDir, "games"), func(_ string, _ int, r *datasets.Record) error {
		ids[r.ID]++
		gens[r.Generator]++
		return nil
	}))
	if len(ids) != 8 || gens["gen-0001"] != 4 || gens["gen-0002"] != 4 {
		t.Fatalf("shards: %d distinct games, by generation %v; want 8, 4 and 4", len(ids), gens)
	}
	for id, n := range ids {
		if n != 1 {
			t.Errorf("game %x recorded %d times", id, n)
		}
	}
	ms, err := train.ReadMetrics(filepath.Join(runDir, train.MetricsFile))
	must(t, err)
	if len(ms) != 2 {
		t.Fatalf("%d generations of metrics, want 2", len(ms))
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

// TestClusterJoinWildcard: yinsh train with the embedded server listening on every interface
// (0.0.0.0) prints a join command that names a dialable address, not nats://0.0.0.0, and its
// local worker, a client of the workers' role with the workers' credentials, plays the run.
func TestClusterJoinWildcard(t *testing.T) {
	dir := t.TempDir()
	cfgPath, runDir, creds := filepath.Join(dir, "wild.yaml"), filepath.Join(dir, "wild"), filepath.Join(dir, "worker.creds")
	must(t, os.WriteFile(creds, []byte("token = wild-token\n"), 0o600))
	must(t, os.WriteFile(cfgPath, []byte(fmt.Sprintf(`variant: blitz
generations: 1
selfplay: {games: 2, parallel: 2, simulations: 4, gumbel_considered: 4}
training: {steps_per_generation: 1, batch_size: 8, min_positions: 4}
evaluation: {games: 0, baseline_games: 0, ladder: [], anchor_games: 0, simulations: 4, parallel: 2}
cluster: {server: embedded, listen: "0.0.0.0:0", worker_creds: %q, local_workers: 1, worker_parallel: 2}
`, creds)), 0o644))
	out, errs, code := runCLI(t, "", "train", "--config", cfgPath, "--run", runDir)
	if code != 0 {
		t.Fatalf("train: exit %d\n%s\n%s", code, out, errs)
	}
	m := regexp.MustCompile(`cluster: run wild on nats://0\.0\.0\.0:\d+ \(workers: yinsh worker --server (\S+) --run wild`).FindStringSubmatch(out)
	if m == nil || strings.Contains(m[1], "0.0.0.0") {
		t.Fatalf("join command of a 0.0.0.0 listen:\n%s", out)
	}
	if !strings.Contains(out, "gen 1/1: self-play 2 games") {
		t.Errorf("the local worker did not play the run:\n%s", out)
	}
}
