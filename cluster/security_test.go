package cluster_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

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
	nc, js, err := cluster.Connect(cluster.ConnOptions{URL: f.srv.URL(), Log: quiet})
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
