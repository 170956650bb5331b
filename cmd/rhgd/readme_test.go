package main

import (
	"fmt"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems"
)

// TestReadmeSummaryKeys: README's list of summary.json keys names every
// key the command writes (of summary, its settings, oracle counts and
// target), and no other.
func TestReadmeSummaryKeys(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	text := string(b)
	start := strings.Index(text, "- `summary.json`, all keys snake_case:")
	require.GreaterOrEqual(t, start, 0, "README lost its summary.json list")
	end := strings.Index(text[start:], "\n- ")
	require.Greater(t, end, 0)
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("`([a-z_0-9]+)`").FindAllStringSubmatch(text[start:start+end], -1) {
		listed[m[1]] = true
	}
	want := map[string]bool{}
	for _, typ := range []reflect.Type{reflect.TypeOf(summary{}), reflect.TypeOf(settings{}), reflect.TypeOf(oracles{}), reflect.TypeOf(target{})} {
		for i := 0; i < typ.NumField(); i++ {
			name := strings.Split(typ.Field(i).Tag.Get("json"), ",")[0]
			want[name] = true
		}
	}
	require.Equal(t, keys(want), keys(listed), "README's summary.json keys against summary.go's")
}

func keys(m map[string]bool) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	sort.Strings(k)
	return k
}

// TestReadmeNPZLimit: README's environment table and the .npz section
// name the variable and the default bound on one array that the problems
// package defines.
func TestReadmeNPZLimit(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	text := string(b)
	gib := fmt.Sprintf("%d GiB", problems.DefaultMaxArrayBytes>>30)
	require.Equal(t, int64(0), problems.DefaultMaxArrayBytes%(1<<30), "the default is a whole number of GiB")
	row := regexp.MustCompile("(?m)^\\| `" + problems.EnvMaxArrayBytes + "=N` \\|.*$").FindString(text)
	require.NotEmpty(t, row, "README's environment table lacks %s", problems.EnvMaxArrayBytes)
	require.Contains(t, row, "default "+gib)
	require.Contains(t, text, "fits in\n**"+gib+"**", "README's .npz section gives another default")
}
