package blas

import (
	"encoding/json"
	"runtime"

	"github.com/klauspost/cpuid/v2"
)

// Info describes the numerical backend of this process.
type Info struct {
	Backend   string   `json:"backend"`   // "openblas" or "gonum"
	Available []string `json:"available"` // backends this build contains
	Library   string   `json:"library,omitempty"`
	// Core is OpenBLAS's kernel set; DetectedCore is the one OpenBLAS chose
	// on its own when rhgd re-selected it (see the package doc).
	Core         string `json:"core,omitempty"`
	DetectedCore string `json:"detected_core,omitempty"`
	// RunnableCores are the kernel sets this CPU can execute
	// (RunnableCores), each a value for OPENBLAS_CORETYPE.
	RunnableCores []string `json:"runnable_cores,omitempty"`
	Threads       int      `json:"threads"`
	// Shared is Config.Shared of the start-up: rhgd leaves the library's
	// kernels and threads to the host.
	Shared bool `json:"shared"`
	// SharedWindows says the one-thread windows are on in Shared mode
	// (SetSharedWindows); outside it they always are.
	SharedWindows bool `json:"shared_windows"`
	// Cutoffs are the Hybrid's sizes: below level2_mn (m·n) and
	// level3_mnk (m·n·k) calls stay in Go.
	Cutoffs map[string]int `json:"cutoffs,omitempty"`
	// ThreadTable is the table of one-thread windows in use (nil in a
	// pure-Go build).
	ThreadTable *TableInfo `json:"thread_table,omitempty"`
	CPU         CPUInfo    `json:"cpu"`
	Go          string     `json:"go"`
	Cgo         bool       `json:"cgo"`
	Warnings    []string   `json:"warnings,omitempty"`
}

// TableInfo describes the table of one-thread windows in use (see
// ThreadsFrom).
type TableInfo struct {
	// Source says where the table comes from: a profile (its path, when
	// it was measured and beside what load) or the fallback (and how it
	// was derived for this thread count).
	Source  string `json:"source"`
	Threads int    `json:"threads"`
	// From is each call's order from which it runs on all threads; calls
	// that never do are left out.
	From map[string]int `json:"threads_from"`
	// Profile is the profile file looked for ("" when profiles are off),
	// Notes what in it was passed over.
	Profile string   `json:"profile,omitempty"`
	Notes   []string `json:"notes,omitempty"`
	// Key is this machine's profile key at the table's thread count: a
	// profile applies when its key is this.
	Key ProfileKey `json:"key"`
}

// CPUInfo is the part of klauspost/cpuid's report that shapes the choice.
type CPUInfo struct {
	Brand  string `json:"brand"`
	Vendor string `json:"vendor"`
	Family int    `json:"family"`
	Model  int    `json:"model"`
	// PhysicalCores and LogicalCores are the cores and hardware threads
	// this process may run on (PhysicalCores, runtime.NumCPU).
	PhysicalCores int      `json:"physical_cores"`
	LogicalCores  int      `json:"logical_cores"`
	X64Level      int      `json:"x64_level"`
	Features      []string `json:"features"`
}

// CurrentInfo reports the backend, library, kernels, threads and CPU.
func CurrentInfo() Info {
	c := cpuid.CPU
	inf := Info{
		Backend: Current().String(),
		Threads: Threads(),
		Shared:  shared.Load(),

		SharedWindows: sharedWindows.Load(),
		CPU: CPUInfo{
			Brand: c.BrandName, Vendor: c.VendorString, Family: c.Family, Model: c.Model,
			PhysicalCores: PhysicalCores(), LogicalCores: runtime.NumCPU(),
			X64Level: c.X64Level(), Features: featureNames(),
		},
		Go:       runtime.Version(),
		Cgo:      haveNative,
		Warnings: startup.warnings,
	}
	for _, b := range Available() {
		inf.Available = append(inf.Available, b.String())
	}
	if haveNative {
		inf.Library = nativeLibrary()
		inf.Core = nativeCore()
		inf.RunnableCores = RunnableCores()
		if startup.forcedCore != "" {
			inf.DetectedCore = startup.detectedCore
		}
		inf.Cutoffs = map[string]int{"level2_mn": level2Cutoff, "level3_mnk": level3Cutoff}
		t := table.Load()
		inf.ThreadTable = &TableInfo{Source: t.Source, Threads: t.Threads, From: map[string]int{}}
		for c := range NumCalls {
			if n := t.From[c]; n != Never {
				inf.ThreadTable.From[c.String()] = n
			}
		}
		profileMu.Lock()
		inf.ThreadTable.Profile, inf.ThreadTable.Notes, inf.ThreadTable.Key = profileState.path, profileState.notes, profileState.key
		profileMu.Unlock()
	}
	return inf
}

// JSON renders the report, indented.
func (i Info) JSON() []byte {
	b, err := json.MarshalIndent(i, "", "  ")
	if err != nil {
		panic(err) // only plain fields: cannot fail
	}
	return b
}
