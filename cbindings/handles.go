//go:build cgo

package main

import (
	"fmt"
	"sync"
)

// A handle is a key into one mutex-protected table of live objects, as in
// libtailscale: the C side holds an int64, never a Go pointer (which C may
// not keep) nor a fake pointer. Keys start far from zero, so that 0, small
// integers and uninitialized memory are unlikely to name a live object,
// and are never reused.
type table struct {
	mu   sync.Mutex
	next int64
	m    map[int64]any
}

var handles = table{next: 42<<16 + 1, m: map[int64]any{}}

// add stores v and returns its handle.
func (t *table) add(v any) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.next
	t.next++
	t.m[h] = v
	return h
}

// remove deletes the handle h of kind T and returns its object.
func remove[T any](t *table, h int64, kind string) (T, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v, err := lookupLocked[T](t, h, kind)
	if err == nil {
		delete(t.m, h)
	}
	return v, err
}

// lookup returns the object of kind T that h names.
func lookup[T any](t *table, h int64, kind string) (T, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return lookupLocked[T](t, h, kind)
}

func lookupLocked[T any](t *table, h int64, kind string) (T, error) {
	var zero T
	v, ok := t.m[h]
	if !ok {
		return zero, fmt.Errorf("%w: no %s %d (never created, or freed)", errBadHandle, kind, h)
	}
	o, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("%w: handle %d is a %s, not a %s", errBadHandle, h, kindOf(v), kind)
	}
	return o, nil
}

// len returns the number of live handles.
func (t *table) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}

// kinder names an object's kind in messages.
type kinder interface{ kind() string }

func kindOf(v any) string {
	if k, ok := v.(kinder); ok {
		return k.kind()
	}
	return fmt.Sprintf("%T", v)
}

// busy is embedded in every object: one call at a time may use it.
// A second concurrent call fails with RHGD_EBUSY instead of racing on the
// object's scratch space.
type busy struct{ mu sync.Mutex }

// acquire claims the object for one call; release it when done.
func (b *busy) acquire(what string) error {
	if !b.mu.TryLock() {
		return fmt.Errorf("%w: %s", errBusy, what)
	}
	return nil
}

func (b *busy) release() { b.mu.Unlock() }

// claimer is an object that one call at a time may use: every object of
// the handles table embeds busy.
type claimer interface {
	acquire(what string) error
	release()
}

// claim returns the object of kind T that h names, claimed for the call:
// release it when done.
func claim[T claimer](h int64, kind string) (T, error) {
	o, err := lookup[T](&handles, h, kind)
	if err != nil {
		return o, err
	}
	if err := o.acquire(kind); err != nil {
		var zero T
		return zero, err
	}
	return o, nil
}
