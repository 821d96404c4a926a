package protocol

import "sync"

// tailBuffer is an io.Writer that keeps the last max bytes written to it, safe for concurrent use.
type tailBuffer struct {
	mu   sync.Mutex
	buf  []byte // ring of len max once full
	next int    // where the next byte goes once full
	max  int
}

func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if t.max <= 0 {
		return n, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(p) >= t.max {
		p = p[len(p)-t.max:]
	}
	if room := t.max - len(t.buf); room > 0 { // still filling
		k := min(room, len(p))
		t.buf = append(t.buf, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 {
		k := copy(t.buf[t.next:], p)
		p = p[k:]
		t.next = (t.next + k) % t.max
	}
	return n, nil
}

// String returns the bytes kept, oldest first.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.buf) < t.max {
		return string(t.buf)
	}
	return string(t.buf[t.next:]) + string(t.buf[:t.next])
}
