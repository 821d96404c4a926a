package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// StatusReport is what `yinsh cluster status` prints.
type StatusReport struct {
	Run      RunInfo
	Counters Counters
	Workers  []Heartbeat // heartbeats not yet expired, by name
	// Backlog is the games in the stream the trainer has not acknowledged: waiting (Pending) and
	// fetched but not yet acknowledged (AckPending).
	Pending    uint64
	AckPending int
}

// Status reads a run's state from the server.
func Status(ctx context.Context, c ConnOptions, run string) (StatusReport, error) {
	var r StatusReport
	if c.Name == "" {
		c.Name = "yinsh cluster status"
	}
	nc, js, err := connect(c, WorkerInbox(run, WorkerOfConn(c.Name)))
	if err != nil {
		return r, err
	}
	defer nc.Close()
	n := namesFor(run)
	kv, err := bindRun(ctx, js, n, c.URL)
	if err != nil {
		return r, err
	}
	if e, err := kv.Get(ctx, runKey); err == nil {
		if r.Run, err = ParseRunInfo(e.Value()); err != nil {
			return r, err
		}
	} else if !errors.Is(err, jetstream.ErrKeyNotFound) {
		return r, err
	}
	if e, err := kv.Get(ctx, countersKey); err == nil {
		if err := parseJSON(e.Value(), &r.Counters, "counters"); err != nil {
			return r, err
		}
	} else if !errors.Is(err, jetstream.ErrKeyNotFound) {
		return r, err
	}
	if hb, err := js.KeyValue(ctx, n.workers); err == nil {
		lister, err := hb.ListKeys(ctx)
		if err == nil {
			for k := range lister.Keys() {
				e, err := hb.Get(ctx, k)
				if err != nil {
					continue
				}
				var h Heartbeat
				if parseJSON(e.Value(), &h, "heartbeat "+k) == nil {
					r.Workers = append(r.Workers, h)
				}
			}
		}
	}
	sort.Slice(r.Workers, func(i, j int) bool { return r.Workers[i].Worker < r.Workers[j].Worker })
	cons, err := js.Consumer(ctx, n.stream, n.consumer)
	if err != nil {
		return r, fmt.Errorf("cluster: run %q: the trainer's consumer: %w", run, err)
	}
	ci, err := cons.Info(ctx)
	if err != nil {
		return r, err
	}
	r.Pending, r.AckPending = ci.NumPending, ci.NumAckPending
	return r, nil
}

// Write prints the report.
func (r StatusReport) Write(w io.Writer) {
	fmt.Fprintf(w, "run %s: generation %d, network %s", r.Run.Run, r.Run.Generation, r.Run.Network)
	if r.Run.Finished {
		fmt.Fprint(w, " (finished)")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "stream backlog: %d games waiting, %d being ingested\n", r.Pending, r.AckPending)
	c := r.Counters
	fmt.Fprintf(w, "ingested %d games; dropped %d stale (staleness %d), %d duplicates, %d invalid\n", c.Ingested, c.Stale, r.Run.Staleness, c.Duplicates, c.Invalid)
	fmt.Fprintf(w, "workers seen: %d\n", len(r.Workers))
	for _, h := range r.Workers {
		age := "?"
		if t, err := time.Parse(time.RFC3339, h.Time); err == nil {
			age = time.Since(t).Round(time.Second).String()
		}
		fmt.Fprintf(w, "  %-24s host %s, parallel %d, generation %d, %d games (%.0f games/hour), %d ingested, last seen %s ago\n",
			h.Worker, h.Host, h.Parallel, h.Generation, h.Games, h.GamesHour, c.ByWorker[h.Worker], age)
	}
}
