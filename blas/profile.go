package blas

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/klauspost/cpuid/v2"
)

// EnvProfile names the thread-profile file (see ProfilePath); "off" turns
// profiles off.
const EnvProfile = "RHGD_PROFILE"

// profileVersion is the version of the profile file's format.
const profileVersion = 1

// ProfileKey is what a thread profile was measured on: a profile applies
// only where all of it is the same.
type ProfileKey struct {
	CPU      string `json:"cpu"`      // cpuid's brand name
	Cores    int    `json:"cores"`    // PhysicalCores
	Threads  int    `json:"threads"`  // the native library's thread count
	Library  string `json:"library"`  // OpenBLAS's configuration, with its version
	Kernels  string `json:"kernels"`  // OpenBLAS's kernel set
	Platform string `json:"platform"` // GOOS/GOARCH
}

func (k ProfileKey) String() string {
	return fmt.Sprintf("%s, %d cores, %d threads, %s, kernels %s", k.CPU, k.Cores, k.Threads, k.Library, k.Kernels)
}

// Profile is one machine's measured thread crossovers, as `rhgd tune`
// writes them.
type Profile struct {
	Key ProfileKey `json:"key"`
	// Measured is when (RFC 3339), Load how many busy threads ran beside
	// the loaded measurements (0: none were made).
	Measured string `json:"measured"`
	Load     int    `json:"load"`
	Rule     Rule   `json:"rule"`
	// ThreadsFrom is each call's order from which it runs on all threads;
	// 0 means never. Every call of the table must be present.
	ThreadsFrom map[string]int `json:"threads_from"`
	// Curves are the measurements the orders come from.
	Curves map[string][]Point `json:"curves,omitempty"`
}

// ProfileFile is the profile file: one profile per key, so that one
// cache directory serves every machine that shares it.
type ProfileFile struct {
	Version  int       `json:"version"`
	Profiles []Profile `json:"profiles"`
}

// ProfilePath returns the thread-profile file rhgd reads: RHGD_PROFILE if
// set (through getenv; "" if it is "off"), else threads.json in rhgd's
// directory under the user's cache directory ($XDG_CACHE_HOME, else
// ~/.cache on Linux; os.UserCacheDir), or "" if there is none.
func ProfilePath(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	if p := strings.TrimSpace(getenv(EnvProfile)); p != "" {
		if strings.EqualFold(p, "off") {
			return ""
		}
		return p
	}
	dir := ""
	if x := getenv("XDG_CACHE_HOME"); filepath.IsAbs(x) {
		dir = x
	} else if d, err := os.UserCacheDir(); err == nil {
		dir = d
	}
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "rhgd", "threads.json")
}

// CurrentKey is the key of this process's machine and library at its
// present thread count.
func CurrentKey() ProfileKey { return keyFor(Threads()) }

func keyFor(threads int) ProfileKey {
	return ProfileKey{
		CPU: strings.TrimSpace(cpuid.CPU.BrandName), Cores: PhysicalCores(), Threads: threads,
		Library: nativeLibrary(), Kernels: nativeCore(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
	}
}

// table returns p's table, or an error naming the first bad entry.
func (p *Profile) table(path string) (*Table, error) {
	t := &Table{Threads: p.Key.Threads}
	seen := map[string]bool{}
	for name, n := range p.ThreadsFrom {
		c, ok := ParseCall(name)
		switch {
		case !ok:
			return nil, fmt.Errorf("threads_from: unknown call %q", name)
		case n < 0:
			return nil, fmt.Errorf("threads_from: %s = %d < 0", name, n)
		case n == 0:
			n = Never
		}
		t.From[c], seen[name] = n, true
	}
	for c := range NumCalls {
		if !seen[c.String()] {
			return nil, fmt.Errorf("threads_from: no entry for %s", c)
		}
	}
	t.Source = fmt.Sprintf("profile %s (measured %s, load %d)", path, p.Measured, p.Load)
	return t, nil
}

// ReadProfileFile reads and checks the profile file at path. A missing
// file is fs.ErrNotExist.
func ReadProfileFile(path string) (*ProfileFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f ProfileFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if f.Version != profileVersion {
		return nil, fmt.Errorf("%s: version %d (this rhgd reads %d)", path, f.Version, profileVersion)
	}
	for i := range f.Profiles {
		if _, err := f.Profiles[i].table(path); err != nil {
			return nil, fmt.Errorf("%s: profile %d (%s): %w", path, i, f.Profiles[i].Key, err)
		}
	}
	return &f, nil
}

// SaveProfile adds p to the profile file at path, replacing a profile of
// the same key, through a temporary file and a rename so that a reader
// never sees half a file. A corrupt file is replaced.
func SaveProfile(path string, p Profile) error {
	if _, err := p.table(path); err != nil {
		return err
	}
	f, err := ReadProfileFile(path)
	if err != nil {
		f = &ProfileFile{Version: profileVersion}
	}
	f.Profiles = slices.DeleteFunc(f.Profiles, func(q Profile) bool { return q.Key == p.Key })
	f.Profiles = append(f.Profiles, p)
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".threads-*.json")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// resolveTable returns the table for key: the profile at path with that
// key, else the fallback for key.Threads. notes say what was passed over
// (profiles for other machines); warnings, what was wrong (an unreadable
// or corrupt file).
func resolveTable(path string, key ProfileKey) (t *Table, notes, warnings []string) {
	fb := fallbackTable(key.Threads)
	if path == "" {
		return fb, nil, nil
	}
	f, err := ReadProfileFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fb, nil, nil
	case err != nil:
		return fb, nil, []string{fmt.Sprintf("thread profile ignored, using the fallback table: %v", err)}
	}
	for i := range f.Profiles {
		p := &f.Profiles[i]
		if p.Key == key {
			t, _ := p.table(path) // checked by ReadProfileFile
			return t, nil, nil
		}
		notes = append(notes, fmt.Sprintf("profile for another machine or thread count ignored: %s", p.Key))
	}
	return fb, notes, nil
}

// applyProfile resolves and installs the table for n threads (a no-op in
// a pure-Go build).
func applyProfile(getenv func(string) string, n int) (warnings []string) {
	if !haveNative {
		return nil
	}
	path := ProfilePath(getenv)
	key := keyFor(n)
	t, notes, warns := resolveTable(path, key)
	table.Store(t)
	profileMu.Lock()
	profileState.path, profileState.notes, profileState.key = path, notes, key
	profileMu.Unlock()
	return warns
}

// profileState is what the last applyProfile found, for Info.
var profileMu sync.Mutex

var profileState struct {
	path  string
	notes []string
	key   ProfileKey
}
