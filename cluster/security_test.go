package cluster_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"github.com/yinsh-zero/yinsh/cluster"
	"github.com/yinsh-zero/yinsh/cluster/natsserver"
)

// TestWorkerPermissions: a worker's connection cannot write the trainer's keys or networks, delete
// or purge the games stream, or take games from the trainer's consumer; it can publish games and
// heartbeats.
func TestWorkerPermissions(t *testing.T) {
	f := newFixture(t, cluster.ServerOptions{}, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := f.tr.Publish(ctx, 1, "gen-0000", f.ckpt, []byte("x")); err != nil {
		t.Fatal(err)
	}
	nc, js, err := cluster.Connect(cluster.ConnOptions{URL: f.srv.URL(), Log: quiet}, f.run)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	n := cluster.NamesFor(f.run)
	short := func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, 700*time.Millisecond) }
	kv, err := js.KeyValue(ctx, n.KV)
	if err != nil {
		t.Fatalf("worker cannot bind the run's KV: %v", err)
	}
	if _, err := kv.Get(ctx, cluster.RunKey); err != nil {
		t.Fatalf("worker cannot read the run key: %v", err)
	}
	c, cc := short()
	if _, err := kv.Put(c, cluster.RunKey, []byte(`{"format":1}`)); err == nil {
		t.Error("a worker rewrote the trainer's run key")
	}
	cc()
	c, cc = short()
	if err := js.DeleteStream(c, n.Stream); err == nil {
		t.Error("a worker deleted the games stream")
	}
	cc()
	c, cc = short()
	if s, err := js.Stream(c, n.Stream); err == nil {
		if err := s.Purge(c); err == nil {
			t.Error("a worker purged the games stream")
		}
	}
	cc()
	c, cc = short()
	if err := js.DeleteKeyValue(c, n.KV); err == nil {
		t.Error("a worker deleted the run's KV bucket")
	}
	cc()
	c, cc = short()
	if cons, err := js.Consumer(c, n.Stream, n.Consumer); err == nil {
		if b, err := cons.Fetch(1, jetstream.FetchMaxWait(500*time.Millisecond)); err == nil {
			for range b.Messages() {
				t.Error("a worker took a game from the trainer's consumer")
			}
		}
	}
	cc()
	c, cc = short()
	if obj, err := js.ObjectStore(c, n.Objects); err == nil {
		if _, err := obj.PutBytes(c, "gen-0000", []byte("evil")); err == nil {
			t.Error("a worker replaced a network")
		}
	}
	cc()
	hb, err := js.KeyValue(ctx, n.Workers)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hb.Put(ctx, "w", []byte("{}")); err != nil {
		t.Errorf("a worker cannot write its heartbeat: %v", err)
	}
	publishRaw(t, js, f.run, cluster.Game{Generation: 1, Worker: "w", Record: randomGame(9, "g")})

	// the trainer's view is intact: its run key, its network, the stream and the game in it
	tkv, err := f.tr.JS().KeyValue(ctx, n.KV)
	if err != nil {
		t.Fatal(err)
	}
	e, err := tkv.Get(ctx, cluster.RunKey)
	if err != nil {
		t.Fatal(err)
	}
	if ri, err := cluster.ParseRunInfo(e.Value()); err != nil || ri.Generation != 1 {
		t.Fatalf("run key after the worker's attempts: %+v, %v", ri, err)
	}
	tobj, err := f.tr.JS().ObjectStore(ctx, n.Objects)
	if err != nil {
		t.Fatal(err)
	}
	data, err := tobj.GetBytes(ctx, "gen-0000")
	want, _ := os.ReadFile(f.ckpt)
	if err != nil || !bytes.Equal(data, want) {
		t.Fatalf("network after the worker's attempts: %d bytes, %v", len(data), err)
	}
	st := f.ingest(ctx, 1, 1)
	if st.Appended != 1 || f.games[9] != 1 {
		t.Fatalf("the game a worker published did not reach the trainer: %+v", st)
	}
}

// TestCredentials: beyond loopback credentials are required; wrong or missing credentials are
// refused with a clear message; each kind of worker credentials works; a run the server does not
// hold is named.
func TestCredentials(t *testing.T) {
	if _, err := natsserver.Start(cluster.ServerOptions{Dir: t.TempDir(), Listen: "0.0.0.0:0", Run: "r", Log: quiet}); err == nil ||
		!strings.Contains(err.Error(), "credentials") {
		t.Fatalf("a non-loopback listen without credentials: %v", err)
	}
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := kp.Seed()
	other, _ := nkeys.CreateUser()
	otherSeed, _ := other.Seed()
	for _, tc := range []struct {
		name        string
		server      cluster.Creds
		good, wrong cluster.Creds
	}{
		{"token", cluster.Creds{Token: "s3cret"}, cluster.Creds{Token: "s3cret"}, cluster.Creds{Token: "guess"}},
		{"password", cluster.Creds{User: "worker", Password: "pw"}, cluster.Creds{User: "worker", Password: "pw"}, cluster.Creds{User: "worker", Password: "nope"}},
		{"nkey", cluster.Creds{NkeySeed: string(seed)}, cluster.Creds{NkeySeed: string(seed)}, cluster.Creds{NkeySeed: string(otherSeed)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, cluster.ServerOptions{WorkerCreds: tc.server}, 1)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := f.tr.Publish(ctx, 1, "gen-0000", f.ckpt, []byte("x")); err != nil {
				t.Fatal(err)
			}
			for _, bad := range []cluster.Creds{tc.wrong, {}} {
				err := <-f.worker(ctx, "bad", bad, nil)
				if err == nil || !strings.Contains(err.Error(), "refused the credentials") {
					t.Fatalf("worker with credentials %+v: %v, want a refusal", bad, err)
				}
			}
			published := make(chan cluster.Game, 1)
			wctx, wcancel := context.WithCancel(ctx)
			done := f.worker(wctx, "good", tc.good, published)
			select {
			case <-published:
			case err := <-done:
				t.Fatalf("worker with the right credentials: %v", err)
			case <-ctx.Done():
				t.Fatal("no game published")
			}
			wcancel()
			if err := <-done; err != nil {
				t.Fatalf("worker stopped with %v", err)
			}
			err := cluster.RunWorker(ctx, cluster.WorkerOptions{Conn: cluster.ConnOptions{URL: f.srv.URL(), Creds: tc.good}, Run: "no-such-run", Load: loadNet, Play: fakePlay(0), Log: quiet})
			if err == nil || !strings.Contains(err.Error(), `no run "no-such-run"`) {
				t.Fatalf("worker of a run that does not exist: %v", err)
			}
		})
	}
}

// TestInboxIsolation: a worker's credentials cannot read another client's reply inbox. A spy with
// the workers' token subscribes to nats' default inbox _INBOX.>, to the trainer's inbox prefix, to
// another worker's and to everything, and publishes into the trainer's and the default inbox, while a
// worker plays for the trainer: every one of those is a permissions violation and the spy receives
// nothing, while its own prefix is allowed and the run goes on (the trainer ingests the worker's
// games). Before the fix the worker role could subscribe to _INBOX.>, where the trainer's consumer
// delivered every game it fetched.
func TestInboxIsolation(t *testing.T) {
	creds := cluster.Creds{Token: "workers-token"}
	f := newFixture(t, cluster.ServerOptions{WorkerCreds: creds}, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.tr.Publish(ctx, 1, "gen-0000", f.ckpt, []byte("x")); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var violations []string
	spy, err := nats.Connect(f.srv.URL(), nats.Token(creds.Token), nats.Name("yinsh-worker spy"),
		nats.CustomInboxPrefix(cluster.WorkerInbox(f.run, "spy")),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			mu.Lock()
			violations = append(violations, err.Error())
			mu.Unlock()
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer spy.Close()
	forbidden := []string{"_INBOX.>", cluster.TrainerInbox(f.run) + ".>", cluster.WorkerInbox(f.run, "w1") + ".>", "_INBOX_yinsh.>", ">"}
	got := make([]atomic.Int64, len(forbidden))
	for i, subj := range forbidden {
		if _, err := spy.Subscribe(subj, func(*nats.Msg) { got[i].Add(1) }); err != nil {
			t.Fatal(err)
		}
	}
	// forged replies: into the trainer's inbox and nats' default one
	for _, subj := range []string{cluster.TrainerInbox(f.run) + ".x", "_INBOX.x"} {
		if err := spy.Publish(subj, []byte("forged")); err != nil {
			t.Fatal(err)
		}
	}
	if err := spy.Flush(); err != nil {
		t.Fatal(err)
	}
	// a real worker with the same token plays for the trainer meanwhile
	wctx, wcancel := context.WithCancel(ctx)
	done := f.worker(wctx, "w1", creds, nil)
	st := f.ingest(ctx, 1, 6)
	wcancel()
	if err := <-done; err != nil {
		t.Fatalf("worker: %v", err)
	}
	if st.Appended != 6 {
		t.Fatalf("ingest: %+v, want 6 games appended", st)
	}
	spy.Flush()
	mu.Lock()
	all := strings.ToLower(strings.Join(violations, "\n"))
	for i, subj := range forbidden {
		if n := got[i].Load(); n != 0 {
			t.Errorf("the spy received %d messages on %s", n, subj)
		}
		if !strings.Contains(all, strings.ToLower(fmt.Sprintf("Subscription to %q", subj))) {
			t.Errorf("subscribing to %s: no permissions violation; errors:\n%s", subj, all)
		}
	}
	for _, subj := range []string{cluster.TrainerInbox(f.run) + ".x", "_INBOX.x"} {
		if !strings.Contains(all, strings.ToLower(fmt.Sprintf("Publish to %q", subj))) {
			t.Errorf("publishing to %s: no permissions violation; errors:\n%s", subj, all)
		}
	}
	mu.Unlock()
	// the spy's own inbox works: JetStream requests through it are answered
	c, cc := context.WithTimeout(ctx, 5*time.Second)
	defer cc()
	js, err := jetstream.New(spy)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := js.KeyValue(c, cluster.NamesFor(f.run).KV)
	if err != nil {
		t.Fatalf("the spy's own inbox: binding the run's KV: %v", err)
	}
	if _, err := kv.Get(c, cluster.RunKey); err != nil {
		t.Fatalf("the spy's own inbox: reading the run key: %v", err)
	}
	// a client whose inbox is not the one its name allows is told so when it connects, instead of
	// waiting for its requests' timeouts
	_, _, err = cluster.ConnectInbox(cluster.ConnOptions{URL: f.srv.URL(), Creds: creds, Name: cluster.WorkerConnName("spy"), Log: quiet}, cluster.WorkerInbox(f.run, "w1"))
	if err == nil || !strings.Contains(err.Error(), "refuses this client's reply inbox "+cluster.WorkerInbox(f.run, "w1")) {
		t.Fatalf("connecting as spy with w1's inbox: %v", err)
	}
}

// TestJoinCommandWildcard: the join command of a server listening on every interface names an
// address a worker can dial, never 0.0.0.0 or ::; with the host's addresses given, the first
// usable one (IPv4 first, no loopback or link-local), the others listed; with none, a placeholder to
// replace. A specific listen address is printed as it is.
func TestJoinCommandWildcard(t *testing.T) {
	cidr := func(s string) net.Addr {
		ip, n, err := net.ParseCIDR(s)
		if err != nil {
			t.Fatal(err)
		}
		n.IP = ip
		return n
	}
	host := []net.Addr{cidr("127.0.0.1/8"), cidr("::1/128"), cidr("fe80::1/64"), cidr("fd00::2/64"), cidr("192.0.2.2/24"), cidr("169.254.1.1/16")}
	for _, tc := range []struct {
		url   string
		addrs []net.Addr
		want  string
	}{
		{"nats://0.0.0.0:4222", host, "yinsh worker --server nats://192.0.2.2:4222 --run dist; the server listens on every interface: nats://[fd00::2]:4222 or this host's name work too"},
		{"nats://[::]:4222", host[:4], "yinsh worker --server nats://[fd00::2]:4222 --run dist"},
		{"tls://0.0.0.0:5222", host[:1], "yinsh worker --server tls://TRAINER-HOST:5222 --run dist, TRAINER-HOST replaced by this machine's name or address as the workers reach it"},
		{"nats://127.0.0.1:4222", host, "yinsh worker --server nats://127.0.0.1:4222 --run dist"},
		{"nats://10.1.2.3:4222", host, "yinsh worker --server nats://10.1.2.3:4222 --run dist"},
	} {
		if got := cluster.JoinCommandAddrs("dist", tc.url, tc.addrs); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.url, got, tc.want)
		}
	}

	// this host: a server on 0.0.0.0 is reached by a worker at the address its join command names
	creds := cluster.Creds{Token: "t"}
	f := newFixture(t, cluster.ServerOptions{Listen: "0.0.0.0:0", WorkerCreds: creds}, 1)
	cmd := cluster.JoinCommand(f.run, f.srv.URL())
	if !strings.HasPrefix(f.srv.URL(), "nats://0.0.0.0:") || strings.Contains(cmd, "0.0.0.0") || strings.Contains(cmd, "[::]") {
		t.Fatalf("listening on %s, join command %q", f.srv.URL(), cmd)
	}
	server := strings.Fields(cmd)[3]
	if strings.Contains(server, "TRAINER-HOST") {
		t.Skipf("this host has no address but loopback: %s", cmd)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := cluster.Status(ctx, cluster.ConnOptions{URL: server, Creds: creds, Log: quiet}, f.run); err != nil {
		t.Fatalf("a worker at %s (%s): %v", server, cmd, err)
	}
}
