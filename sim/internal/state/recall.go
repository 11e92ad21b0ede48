package state

import "sync"

// recallMax bounds each recall: about 300 bytes an entry, so about a MB.
const recallMax = 4096

// recall keeps records that never change once written (tokens, sessions)
// in memory, so a bearer check is a map read instead of a bbolt read and
// a record decode. The store stays the truth: a miss reads it, and anything
// that deletes such records (ResetChannel) forgets every entry. gen
// guards the race of a read or a write that began before a reset and
// would remember a record the reset deleted: a record is remembered only
// if no reset ended since the caller took its generation.
type recall[T any] struct {
	mu  sync.RWMutex
	gen uint64
	m   map[string]T
}

func (r *recall[T]) get(key string) (T, bool) {
	r.mu.RLock()
	v, ok := r.m[key]
	r.mu.RUnlock()
	return v, ok
}

// generation is taken before reading or writing the store.
func (r *recall[T]) generation() uint64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.gen
}

// put remembers v unless a reset ended since gen. When full, an arbitrary
// entry makes room (a later miss reads the store again).
func (r *recall[T]) put(gen uint64, key string, v T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if gen != r.gen {
		return
	}
	if r.m == nil {
		r.m = make(map[string]T)
	}
	if len(r.m) >= recallMax {
		for k := range r.m {
			delete(r.m, k)
			break
		}
	}
	r.m[key] = v
}

// forget drops every entry; called after a reset has committed.
func (r *recall[T]) forget() {
	r.mu.Lock()
	r.gen++
	r.m = nil
	r.mu.Unlock()
}

// drop forgets the given keys (records a purge deleted) and, like forget,
// turns away a read that began before the deletion committed.
func (r *recall[T]) drop(keys []string) {
	if len(keys) == 0 {
		return
	}
	r.mu.Lock()
	r.gen++
	for _, k := range keys {
		delete(r.m, k)
	}
	r.mu.Unlock()
}
