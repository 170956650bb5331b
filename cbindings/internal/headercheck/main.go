// Command headercheck compares the functions a built rhgd library exports
// with the prototypes of the hand-written header, so that the two cannot
// drift apart unnoticed:
//
//	go run ./cbindings/internal/headercheck build/librhgd.so cbindings/rhgd.h
//
// Every rhgd_ function the library defines (nm -D --defined-only for a
// shared library, nm --defined-only for a static archive) must be
// declared in the header with RHGD_API, and every declared one defined.
// It exits with status 1 and lists the differences otherwise.
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: headercheck <librhgd.so|librhgd.a> <rhgd.h>")
		os.Exit(2)
	}
	lib, hdr := os.Args[1], os.Args[2]
	src, err := os.ReadFile(hdr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	args := []string{"--defined-only", lib}
	if strings.HasSuffix(lib, ".so") {
		args = append([]string{"-D"}, args...)
	}
	out, err := exec.Command("nm", args...).Output()
	if err != nil {
		fmt.Fprintf(os.Stderr, "nm %s: %v\n", strings.Join(args, " "), err)
		os.Exit(2)
	}
	declared, err := Prototypes(string(src))
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", hdr, err)
		os.Exit(1)
	}
	if problems := Compare(Symbols(out), declared); len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "%s and %s disagree:\n  %s\n", lib, hdr, strings.Join(problems, "\n  "))
		os.Exit(1)
	}
	fmt.Printf("%s: the %d rhgd_ functions match %s\n", lib, len(declared), hdr)
}

var (
	// proto matches a declaration: RHGD_API, a return type, the name.
	proto = regexp.MustCompile(`RHGD_API\s+[\w\s\*]*?\b(rhgd_\w+)\s*\(`)
	// anyCall matches any rhgd_ name followed by a parenthesis, to find
	// declarations that lack RHGD_API.
	anyDecl = regexp.MustCompile(`(?m)^[\w\s\*]*?\b(rhgd_\w+)\s*\(`)
	comment = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
)

// Prototypes returns the functions the header declares, sorted. A
// declaration without RHGD_API is an error: it would be hidden in the
// library.
func Prototypes(header string) ([]string, error) {
	src := comment.ReplaceAllString(header, "")
	var names []string
	for _, m := range proto.FindAllStringSubmatch(src, -1) {
		names = append(names, m[1])
	}
	for _, m := range anyDecl.FindAllStringSubmatch(src, -1) {
		if !slices.Contains(names, m[1]) && !strings.Contains(m[0], "typedef") {
			return nil, fmt.Errorf("%s is declared without RHGD_API", m[1])
		}
	}
	slices.Sort(names)
	if i := firstDup(names); i >= 0 {
		return nil, fmt.Errorf("%s is declared twice", names[i])
	}
	return names, nil
}

func firstDup(s []string) int {
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] {
			return i
		}
	}
	return -1
}

// Symbols returns the rhgd_ functions (type T) in nm's output, sorted and
// without duplicates (an archive may list a symbol once per member).
func Symbols(nm []byte) []string {
	var names []string
	for _, line := range bytes.Split(nm, []byte("\n")) {
		f := strings.Fields(string(line))
		if len(f) >= 2 && f[len(f)-2] == "T" && strings.HasPrefix(f[len(f)-1], "rhgd_") {
			names = append(names, f[len(f)-1])
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// Compare lists the functions only one side has.
func Compare(lib, header []string) []string {
	var out []string
	for _, s := range lib {
		if !slices.Contains(header, s) {
			out = append(out, s+": exported by the library, not declared in the header")
		}
	}
	for _, s := range header {
		if !slices.Contains(lib, s) {
			out = append(out, s+": declared in the header, not exported by the library")
		}
	}
	return out
}
