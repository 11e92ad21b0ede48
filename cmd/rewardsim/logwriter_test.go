package main

import (
	"bytes"
	"sync"
	"testing"
	"time"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Log lines are written out in batches: within the flush interval while
// serve runs, and every last one when it stops.
func TestFlushingWriter(t *testing.T) {
	var out lockedBuffer
	w := newFlushingWriter(&out, 20*time.Millisecond)
	_, _ = w.Write([]byte("one\n"))
	if out.String() != "" {
		t.Fatal("a line was written at once, not batched")
	}
	deadline := time.Now().Add(5 * time.Second)
	for out.String() != "one\n" {
		if time.Now().After(deadline) {
			t.Fatalf("the line never came out: %q", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	_, _ = w.Write([]byte("two\n"))
	if err := w.Close(); err != nil || out.String() != "one\ntwo\n" {
		t.Fatalf("after Close: %q, %v", out.String(), err)
	}
}
