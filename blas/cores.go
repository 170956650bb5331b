package blas

import (
	"runtime"

	"github.com/klauspost/cpuid/v2"
)

// PhysicalCores returns the number of physical cores this process may run
// on: BLAS kernels saturate a core's vector units, so hyper-threads add
// contention, not speed. On Linux it counts the distinct (package, core)
// pairs of the CPUs in the process's affinity mask from sysfs; elsewhere,
// or when sysfs is unreadable, it takes cpuid's count. It never exceeds
// runtime.NumCPU (cpuid reads the host's topology leaves, which a VM may
// fill with the host's numbers: 254 cores on a 2-vCPU guest).
func PhysicalCores() int {
	n := osPhysicalCores()
	if n < 1 {
		n = cpuid.CPU.PhysicalCores
	}
	if n < 1 || n > runtime.NumCPU() {
		n = runtime.NumCPU()
	}
	return n
}
