package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The signatures the issue requires, verbatim: other programs call them.
var required = []string{
	"int rhgd_expsym(int64_t n, const double *a, double *out);",
	"int rhgd_logsym(int64_t n, const double *a, double *out);",
	"int rhgd_sqrtsym(int64_t n, const double *a, double *out);",
	"int rhgd_expm(int64_t n, const double *a, double *out);",
	"int rhgd_lyapunov_sym(int64_t n, const double *a, const double *c, double *x);",
	"int rhgd_spd_exp(int64_t n, const double *x, const double *u, double *out);",
	"int rhgd_spd_log(int64_t n, const double *x, const double *y, double *out);",
	"int rhgd_spd_dist(int64_t n, const double *x, const double *y, double *dist);",
	"int rhgd_stiefel_retr_qr(int64_t n, int64_t p, const double *x, const double *u, double *out);",
	"int rhgd_coupling_retr(int64_t m, int64_t n, const double *a, const double *b, const double *gamma, const double *u, double *out);",
	"int rhgd_last_error(char *buf, size_t len);",
	"const char *rhgd_version(void);",
}

var space = regexp.MustCompile(`\s+`)

func normalize(s string) string {
	s = space.ReplaceAllString(s, " ")
	s = strings.ReplaceAll(s, "( ", "(")
	return strings.ReplaceAll(s, " )", ")")
}

func TestRequiredSignatures(t *testing.T) {
	src, err := os.ReadFile("../../rhgd.h")
	if err != nil {
		t.Fatal(err)
	}
	hdr := normalize(comment.ReplaceAllString(string(src), ""))
	for _, sig := range required {
		if !strings.Contains(hdr, "RHGD_API "+normalize(sig)) {
			t.Errorf("rhgd.h lacks %s", sig)
		}
	}
	names, err := Prototypes(string(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 40 || !slices.Contains(names, "rhgd_solver_run") {
		t.Errorf("%d prototypes found: %v", len(names), names)
	}
}

const fakeHeader = `
/* rhgd_commented(void) is not a declaration */
typedef int (*rhgd_value_fn)(void *user, const double *x);
RHGD_API int rhgd_a(int64_t n);
RHGD_API const char *rhgd_b(void);
RHGD_API int rhgd_c(int64_t m, int64_t n,
                    const double *a);
`

const fakeNM = `
0000000000246480 T _cgo_6c774ba91ebb_Cfunc_rhgd_dgees
0000000000246481 T rhgd_a
0000000000246482 T rhgd_b
0000000000246483 T rhgd_c
0000000000246484 D rhgd_data
0000000000246485 T x_cgo_init
`

// TestDrift: the check passes on agreeing inputs and fails, naming the
// function, when either side gains or loses one.
func TestDrift(t *testing.T) {
	decl, err := Prototypes(fakeHeader)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(decl, []string{"rhgd_a", "rhgd_b", "rhgd_c"}) {
		t.Fatalf("prototypes %v", decl)
	}
	if p := Compare(Symbols([]byte(fakeNM)), decl); len(p) != 0 {
		t.Errorf("agreeing inputs: %v", p)
	}
	extra := fakeNM + "0000000000246486 T rhgd_new_function\n"
	if p := Compare(Symbols([]byte(extra)), decl); len(p) != 1 || !strings.Contains(p[0], "rhgd_new_function: exported") {
		t.Errorf("undeclared export: %v", p)
	}
	missing := strings.Replace(fakeNM, "T rhgd_b", "t rhgd_b", 1) // now local
	if p := Compare(Symbols([]byte(missing)), decl); len(p) != 1 || !strings.Contains(p[0], "rhgd_b: declared") {
		t.Errorf("unexported declaration: %v", p)
	}
	if _, err := Prototypes(fakeHeader + "int rhgd_hidden(void);\n"); err == nil || !strings.Contains(err.Error(), "rhgd_hidden") {
		t.Errorf("declaration without RHGD_API: %v", err)
	}
	if _, err := Prototypes(fakeHeader + "RHGD_API int rhgd_a(int64_t n);\n"); err == nil {
		t.Error("duplicate declaration accepted")
	}
}
