package main

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// flushEvery is how long a log line may wait in the buffer.
const flushEvery = 50 * time.Millisecond

// flushingWriter buffers log lines and writes them out every flushEvery,
// when the buffer fills, and on Close: one write for many request lines.
// A kill -9 loses what is buffered, at most flushEvery of lines.
type flushingWriter struct {
	mu   sync.Mutex
	buf  *bufio.Writer
	stop chan struct{}
	done chan struct{}
}

func newFlushingWriter(w io.Writer, every time.Duration) *flushingWriter {
	f := &flushingWriter{buf: bufio.NewWriterSize(w, 64<<10), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(f.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				f.flush()
			case <-f.stop:
				return
			}
		}
	}()
	return f
}

func (f *flushingWriter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buf.Write(p)
}

func (f *flushingWriter) flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	_ = f.buf.Flush()
}

// Close writes out what is buffered and stops the ticker.
func (f *flushingWriter) Close() error {
	close(f.stop)
	<-f.done
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buf.Flush()
}
