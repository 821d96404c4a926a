package cluster

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
)

// writeTLS writes a CA and a server certificate for 127.0.0.1 signed by it; it returns the paths
// of the CA certificate, the server certificate and the server key.
func writeTLS(t *testing.T, dir string) (ca, cert, key string) {
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
	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	srvTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caTmpl, &srvKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(srvKey)
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
	return write("ca.pem", "CERTIFICATE", caDER), write("server.pem", "CERTIFICATE", srvDER), write("server-key.pem", "EC PRIVATE KEY", keyDER)
}

// TestTLS: the embedded server with a certificate; the trainer and a worker that trust its CA
// exchange a game over TLS; a worker that does not trust it cannot connect.
func TestTLS(t *testing.T) {
	dir := t.TempDir()
	ca, cert, key := writeTLS(t, dir)
	srv, err := StartServer(ServerOptions{Dir: filepath.Join(dir, "nats"), Listen: "127.0.0.1:0", Run: "tls",
		TLS: TLS{Cert: cert, Key: key}, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	trust := TLS{CA: ca}
	tr, err := OpenTrainer(ctx, TrainerOptions{Conn: ConnOptions{URL: srv.URL(), Creds: srv.TrainerCreds(), TLS: trust}, Run: "tls", Fresh: true, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if err := tr.Publish(ctx, 1, "gen-0000", tinyCheckpoint(t, dir, 1), []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := connect(ConnOptions{URL: srv.URL(), Log: quiet}); err == nil {
		t.Fatal("a client that does not trust the server's CA connected")
	}
	wctx, wcancel := context.WithCancel(ctx)
	published := make(chan Game, 1)
	done := make(chan error, 1)
	go func() {
		done <- RunWorker(wctx, WorkerOptions{Conn: ConnOptions{URL: srv.URL(), TLS: trust}, Run: "tls", Name: "w", Parallel: 1,
			Load: loadNet, Play: fakePlay(time.Millisecond), Log: quiet, OnPublished: func(g Game) {
				select {
				case published <- g:
				default:
				}
			}})
	}()
	var g Game
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
	if _, err := tr.Ingest(ctx, IngestOptions{Generation: 1, Need: 1, Seen: seen, Sync: func() error { return nil },
		Append: func(h Game) error { got = append(got, h.Record.ID); return nil }}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != g.Record.ID {
		t.Fatalf("ingested %v, want the worker's first game %x", got, g.Record.ID)
	}
}
