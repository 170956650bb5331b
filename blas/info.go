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
	// Cutoffs are the Hybrid's sizes: below level2_mn and level3_mnk calls
	// stay in Go; below the *_threads_* sizes native calls run on one
	// thread (m·n·k for level-3 calls, m·n for level-2).
	Cutoffs  map[string]int `json:"cutoffs,omitempty"`
	CPU      CPUInfo        `json:"cpu"`
	Go       string         `json:"go"`
	Cgo      bool           `json:"cgo"`
	Warnings []string       `json:"warnings,omitempty"`
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
		inf.Cutoffs = map[string]int{"level2_mn": level2Cutoff, "level3_mnk": level3Cutoff,
			// Sizes from which calls run on all threads (hybrid.go).
			"gemm_threads_mnk": gemmThreadsFrom, "symm_threads_mnk": symmThreadsFrom,
			"syrk_threads_mnk": syrkThreadsFrom, "syr2k_threads_mnk": syr2kThreadsFrom,
			"trmm_threads_mnk": trmmThreadsFrom, "trsm_threads_mnk": trsmThreadsFrom,
			"gemv_threads_mn": gemvThreadsFrom, "symv_threads_mn": symvThreadsFrom,
			"ger_threads_mn": gerThreadsFrom, "trmv_trsv_threads_mn": trmvThreadsFrom}
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
