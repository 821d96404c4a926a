package natsserver

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/cluster"
)

// TestStarterRefusals: Starter's refusals come back as a nil cluster.EmbeddedServer (not a nil
// *Server inside a non-nil interface, which the trainer would try to use and close) and say why.
func TestStarterRefusals(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tc := range []struct {
		o    cluster.ServerOptions
		want string
	}{
		{cluster.ServerOptions{Listen: "0.0.0.0:0"}, "not a loopback address"},
		{cluster.ServerOptions{Listen: "127.0.0.1"}, "want host:port"},
		{cluster.ServerOptions{Listen: "127.0.0.1:99999"}, "bad port"},
		{cluster.ServerOptions{Listen: "127.0.0.1:0", WorkerCreds: cluster.Creds{JWTFile: "w.creds"}}, "operator-run"},
		{cluster.ServerOptions{Listen: "127.0.0.1:0", TLS: cluster.TLS{Cert: "c.pem"}}, "cert and key go together"},
	} {
		tc.o.Dir, tc.o.Run, tc.o.Log = t.TempDir(), "r", quiet
		s, err := Starter(tc.o)
		if s != nil || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: server %v, error %v; want nil and %q", tc.o, s, err, tc.want)
		}
	}
}
