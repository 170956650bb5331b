//go:build cgo

package main

/*
#include <stdlib.h>
#include "rhgd.h"
*/
import "C"

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx"
)

// The backend starts once: explicitly by rhgd_init, or on the first export
// that computes, in shared mode unless RHGD_SHARED=0 says otherwise (a C
// ABI caller is a guest in a host that may already use OpenBLAS).
var (
	backendOnce sync.Once
	backendWarn string // a bad environment value, ignored
)

// getenv reads the host's environment as it is now, through C's getenv:
// Go's os.Getenv sees a copy made when the process started, and so misses
// what a host set since (Python's os.environ before its first rhgd call,
// C's setenv).
func getenv(name string) string {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	if v := C.getenv(cs); v != nil {
		return C.GoString(v)
	}
	return ""
}

// startBackend starts the backend from the environment over shared mode
// if nothing has yet. A bad value is ignored (and reported in rhgd_info):
// failing every call of a host for a typo in RHGD_THREADS would be worse.
func startBackend() error {
	backendOnce.Do(func() {
		cfg, err := blas.ConfigFromEnv(blas.Config{Shared: true, Getenv: getenv})
		if err != nil {
			backendWarn = err.Error() + "; ignored"
		}
		if err := blas.Init(cfg); err != nil && !errors.Is(err, blas.ErrStarted) {
			// The first computation then starts rhgd's own backend
			// from the environment, changing nothing process-wide.
			backendWarn = err.Error()
		}
	})
	return nil
}

//export rhgdgo_init
func rhgdgo_init(backend *C.char, threads C.int64_t, shared C.int) (code C.int) {
	defer func() {
		if r := recover(); r != nil {
			code = fail(fmt.Errorf("%w: panic: %v", errInternal, r))
		}
	}()
	cfg := blas.Config{Shared: shared != 0, Getenv: getenv}
	if backend != nil && C.GoString(backend) != "" {
		b, err := blas.ParseBackend(C.GoString(backend))
		if err != nil {
			return fail(argf("%v", err))
		}
		cfg.Backend = b
	}
	if threads < 0 {
		return fail(argf("threads = %d, want ≥ 0", int64(threads)))
	}
	cfg.Threads = int(threads)
	if err := cfg.Validate(); err != nil {
		return fail(err)
	}
	var err error
	ran := false
	backendOnce.Do(func() {
		ran = true
		err = blas.Init(cfg)
	})
	if !ran {
		return fail(argf("the backend has already started (%v must come before any computation): %+v", fnTerm("rhgd_init"), blas.CurrentInfo()))
	}
	if err != nil {
		return fail(err)
	}
	return codeOK
}

//export rhgdgo_set_threads
func rhgdgo_set_threads(n C.int64_t) C.int {
	return guard(func() error {
		if n < 1 || n > 1<<16 {
			return argf("threads = %d, want 1 to 65536", int64(n))
		}
		return blas.SetThreads(int(n))
	})
}

//export rhgdgo_set_shared_windows
func rhgdgo_set_shared_windows(on C.int) C.int {
	return guard(func() error {
		blas.SetSharedWindows(on != 0)
		return nil
	})
}

// info is rhgd_info's JSON.
type info struct {
	blas.Info
	LAPACK  lapackx.Info `json:"lapack"`
	Version string       `json:"version"`
	Warning string       `json:"startup_warning,omitempty"`
}

//export rhgdgo_info
func rhgdgo_info(buf *C.char, n C.size_t) C.int {
	return stringOut(buf, n, func() (string, error) {
		b, err := json.Marshal(info{Info: blas.CurrentInfo(), LAPACK: lapackx.CurrentInfo(), Version: version, Warning: backendWarn})
		return string(b), err
	})
}
