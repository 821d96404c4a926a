package cluster_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/yinsh-zero/yinsh/cluster"
	"github.com/yinsh-zero/yinsh/cluster/natsserver"
)

// testPKI is a CA with a server certificate for 127.0.0.1 and a client certificate signed by it
// (PEM file paths).
type testPKI struct{ ca, cert, key, clientCert, clientKey string }

// writeTLS writes a CA, a server certificate for 127.0.0.1 and a client certificate signed by it.
func writeTLS(t *testing.T, dir string) testPKI {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "yinsh test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// sign writes a certificate and key for one use (server or client authentication)
	sign := func(name string, serial int64, usage x509.ExtKeyUsage, ips []net.IP) (string, string) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			IPAddresses: ips, ExtKeyUsage: []x509.ExtKeyUsage{usage}, KeyUsage: x509.KeyUsageDigitalSignature}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caTmpl, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		keyDER, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		return write(name+".pem", "CERTIFICATE", der), write(name+"-key.pem", "EC PRIVATE KEY", keyDER)
	}
	p := testPKI{ca: write("ca.pem", "CERTIFICATE", caDER)}
	p.cert, p.key = sign("server", 2, x509.ExtKeyUsageServerAuth, []net.IP{net.ParseIP("127.0.0.1")})
	p.clientCert, p.clientKey = sign("client", 3, x509.ExtKeyUsageClientAuth, nil)
	return p
}

// TestTLS: the embedded server with a certificate; the trainer and a worker that trust its CA
// exchange a game over cluster.TLS; a worker that does not trust it cannot connect.
func TestTLS(t *testing.T) {
	dir := t.TempDir()
	pki := writeTLS(t, dir)
	srv, err := natsserver.Start(cluster.ServerOptions{Dir: filepath.Join(dir, "nats"), Listen: "127.0.0.1:0", Run: "tls",
		TLS: cluster.TLS{Cert: pki.cert, Key: pki.key}, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	trust := cluster.TLS{CA: pki.ca}
	tr, err := cluster.OpenTrainer(ctx, cluster.TrainerOptions{Conn: cluster.ConnOptions{URL: srv.URL(), Creds: srv.TrainerCreds(), TLS: trust}, Run: "tls", Fresh: true, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if err := tr.Publish(ctx, 1, "gen-0000", tinyCheckpoint(t, dir, 1), []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := cluster.Connect(cluster.ConnOptions{URL: srv.URL(), Log: quiet}, "tls"); err == nil {
		t.Fatal("a client that does not trust the server's CA connected")
	}
	wctx, wcancel := context.WithCancel(ctx)
	published := make(chan cluster.Game, 1)
	done := make(chan error, 1)
	go func() {
		done <- cluster.RunWorker(wctx, cluster.WorkerOptions{Conn: cluster.ConnOptions{URL: srv.URL(), TLS: trust}, Run: "tls", Name: "w", Parallel: 1,
			Load: loadNet, Play: fakePlay(time.Millisecond), Log: quiet, OnPublished: func(g cluster.Game) {
				select {
				case published <- g:
				default:
				}
			}})
	}()
	var g cluster.Game
	select {
	case g = <-published:
	case err := <-done:
		t.Fatalf("worker over TLS: %v", err)
	}
	wcancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	seen := map[uint64]bool{}
	var got []uint64
	if _, err := tr.Ingest(ctx, cluster.IngestOptions{Generation: 1, Need: 1, Seen: seen, Sync: func() error { return nil },
		Append: func(h cluster.Game) error { got = append(got, h.Record.ID); return nil }}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != g.Record.ID {
		t.Fatalf("ingested %v, want the worker's first game %x", got, g.Record.ID)
	}
}

// TestMutualTLS: a standalone nats-server that requires client certificates (tls { verify: true }):
// the trainer and a worker given cluster.tls cert and key (and the CA) connect and exchange a game;
// a client with the CA but no certificate of its own is refused.
func TestMutualTLS(t *testing.T) {
	dir := t.TempDir()
	pki := writeTLS(t, dir)
	tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: pki.cert, KeyFile: pki.key, CaFile: pki.ca, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true,
		StoreDir: filepath.Join(dir, "nats"), NoSigs: true, NoLog: true, TLS: true, TLSVerify: true, TLSConfig: tc})
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	defer ns.Shutdown()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("the server did not start")
	}
	url := ns.ClientURL()
	if _, _, err := cluster.Connect(cluster.ConnOptions{URL: url, TLS: cluster.TLS{CA: pki.ca}, Log: quiet}, "mtls"); err == nil {
		t.Fatal("a client without a certificate connected to a server that verifies clients")
	}
	mutual := cluster.TLS{CA: pki.ca, Cert: pki.clientCert, Key: pki.clientKey}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr, err := cluster.OpenTrainer(ctx, cluster.TrainerOptions{Conn: cluster.ConnOptions{URL: url, TLS: mutual}, Run: "mtls", Fresh: true, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if err := tr.Publish(ctx, 1, "gen-0000", tinyCheckpoint(t, dir, 1), []byte("x")); err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithCancel(ctx)
	published := make(chan cluster.Game, 1)
	done := make(chan error, 1)
	go func() {
		done <- cluster.RunWorker(wctx, cluster.WorkerOptions{Conn: cluster.ConnOptions{URL: url, TLS: mutual}, Run: "mtls", Name: "w", Parallel: 1,
			Load: loadNet, Play: fakePlay(time.Millisecond), Log: quiet, OnPublished: func(g cluster.Game) {
				select {
				case published <- g:
				default:
				}
			}})
	}()
	select {
	case <-published:
	case err := <-done:
		t.Fatalf("worker over mutual TLS: %v", err)
	}
	wcancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := 0
	if _, err := tr.Ingest(ctx, cluster.IngestOptions{Generation: 1, Need: 1, Seen: map[uint64]bool{}, Sync: func() error { return nil },
		Append: func(cluster.Game) error { got++; return nil }}); err != nil || got != 1 {
		t.Fatalf("ingested %d games over mutual TLS: %v", got, err)
	}
}
