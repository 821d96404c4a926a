package web

import (
	"context"
	"net/http"
	"sync"
)

// pool bounds the searches (analyses, agent decisions) of the server: slots run at once, up to queue
// more wait for a slot (503 past it), and one client address has at most perClient in flight,
// running or waiting (429 past it), so that one client cannot fill the queue and starve the others.
type pool struct {
	slots     chan struct{}
	queue     int
	perClient int

	mu      sync.Mutex
	waiting int
	clients map[string]int

	// queued, when not nil (tests), receives one value each time a search starts waiting
	queued chan struct{}
}

func newPool(slots, queue, perClient int) *pool {
	return &pool{slots: make(chan struct{}, slots), queue: queue, perClient: perClient, clients: map[string]int{}}
}

// acquire waits for a slot for client; release gives it back. It fails at once with 429 or 503 when
// the client's share or the queue is full, and with 503 when ctx ends while waiting.
func (p *pool) acquire(ctx context.Context, client string) (release func(), err error) {
	p.mu.Lock()
	if p.perClient > 0 && p.clients[client] >= p.perClient {
		p.mu.Unlock()
		return nil, errorf(http.StatusTooManyRequests, "too many searches in flight from %s (at most %d)", client, p.perClient)
	}
	select {
	case p.slots <- struct{}{}:
		p.clients[client]++
		p.mu.Unlock()
		return p.releaser(client), nil
	default:
	}
	if p.waiting >= p.queue {
		p.mu.Unlock()
		return nil, errorf(http.StatusServiceUnavailable, "the search pool is full (%d running, %d waiting): retry later", cap(p.slots), p.waiting)
	}
	p.waiting++
	p.clients[client]++
	p.mu.Unlock()
	if p.queued != nil {
		p.queued <- struct{}{}
	}
	select {
	case p.slots <- struct{}{}:
		p.mu.Lock()
		p.waiting--
		p.mu.Unlock()
		return p.releaser(client), nil
	case <-ctx.Done():
		p.mu.Lock()
		p.waiting--
		p.done(client)
		p.mu.Unlock()
		return nil, errorf(http.StatusServiceUnavailable, "gave up waiting for a search slot: %v", ctx.Err())
	}
}

func (p *pool) releaser(client string) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			<-p.slots
			p.mu.Lock()
			p.done(client)
			p.mu.Unlock()
		})
	}
}

func (p *pool) done(client string) {
	if p.clients[client]--; p.clients[client] <= 0 {
		delete(p.clients, client)
	}
}
