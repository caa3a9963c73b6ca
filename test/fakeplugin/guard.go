package fakeplugin

import "sync"

// read returns *v under mu: one field of the state a connection's reader
// writes while a test reads it.
func read[T any](mu *sync.Mutex, v *T) T {
	mu.Lock()
	defer mu.Unlock()
	return *v
}

// record is a list of frames the host sent, appended to by a connection's
// reader and read by a test at any time. It guards itself; the zero value
// is empty.
type record[T any] struct {
	mu    sync.Mutex
	items []T
}

// add appends v.
func (r *record[T]) add(v T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.items = append(r.items, v)
}

// all is a copy of the items so far.
func (r *record[T]) all() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]T(nil), r.items...)
}

// len counts the items so far.
func (r *record[T]) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.items)
}
