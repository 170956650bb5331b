//go:build cgo && !purego

// Keep in sync with native_purego.go.

package blas

/*
#cgo LDFLAGS: -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

// The library-specific entry points are looked up at run time so that the
// same code links against OpenBLAS, MKL or BLIS (-tags customblas).

static const char *blas_str0_(const char *name) {
	const char *(*f)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, name);
	return f ? f() : NULL;
}

// The setter is looked up once: lapackx calls it around every small
// eigendecomposition, and dlsym costs microseconds.
static void (*blas_setter_)(int);
static int blas_setter_looked_;

static int blas_set_threads_(int n) {
	if (!blas_setter_looked_) {
		void (*f)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
		if (!f) f = (void (*)(int))dlsym(RTLD_DEFAULT, "MKL_Set_Num_Threads");
		if (!f) f = (void (*)(int))dlsym(RTLD_DEFAULT, "bli_thread_set_num_threads");
		blas_setter_ = f;
		blas_setter_looked_ = 1;
	}
	if (!blas_setter_) return -1;
	blas_setter_(n);
	return 0;
}

static int blas_get_threads_(void) {
	int (*f)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
	if (!f) f = (int (*)(void))dlsym(RTLD_DEFAULT, "MKL_Get_Max_Threads");
	return f ? f() : -1;
}

// blas_force_core_ re-runs a DYNAMIC_ARCH OpenBLAS's kernel selection with
// OPENBLAS_CORETYPE set. It must run before the first BLAS call.
static int blas_force_core_(const char *core) {
	void (*quit)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "gotoblas_dynamic_quit");
	void (*init)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "gotoblas_dynamic_init");
	if (!quit || !init) return -1;
	setenv("OPENBLAS_CORETYPE", core, 1);
	quit();
	init();
	return 0;
}
*/
import "C"

import (
	"strings"
	"unsafe"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/netlib/blas/netlib"
)

const haveNative = true

// nativeImpl is the cgo CBLAS.
func nativeImpl() gblas.Float64 { return netlib.Implementation{} }

func cstr(name string) string {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	p := C.blas_str0_(cname)
	if p == nil {
		return ""
	}
	return strings.TrimSpace(C.GoString(p))
}

// nativeLibrary describes the linked library, e.g. "OpenBLAS 0.3.21
// DYNAMIC_ARCH ...", or "unknown CBLAS".
func nativeLibrary() string {
	if s := cstr("openblas_get_config"); s != "" {
		return s
	}
	if s := cstr("bli_info_get_version_str"); s != "" {
		return "BLIS " + s
	}
	if C.blas_get_threads_() >= 0 {
		return "MKL"
	}
	return "unknown CBLAS"
}

// nativeCore is OpenBLAS's kernel set ("SkylakeX"), or "".
func nativeCore() string { return cstr("openblas_get_corename") }

func nativeForceCore(core string) bool {
	c := C.CString(core)
	defer C.free(unsafe.Pointer(c))
	return C.blas_force_core_(c) == 0
}

func nativeSetThreads(n int) { C.blas_set_threads_(C.int(n)) }

func nativeThreads() int {
	n := int(C.blas_get_threads_())
	if n < 1 {
		return 1
	}
	return n
}
