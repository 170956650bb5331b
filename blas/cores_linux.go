package blas

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// osPhysicalCores counts the distinct (physical package, core) pairs of
// the CPUs in the affinity mask, or returns 0 when it cannot.
func osPhysicalCores() int {
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) != nil {
		return 0
	}
	cores := map[string]bool{}
	for cpu, seen := 0, 0; seen < set.Count(); cpu++ {
		if !set.IsSet(cpu) {
			continue
		}
		seen++
		dir := fmt.Sprintf("/sys/devices/system/cpu/cpu%d/topology/", cpu)
		pkg, err1 := os.ReadFile(dir + "physical_package_id")
		core, err2 := os.ReadFile(dir + "core_id")
		if err1 != nil || err2 != nil {
			return 0
		}
		cores[strings.TrimSpace(string(pkg))+"/"+strings.TrimSpace(string(core))] = true
	}
	return len(cores)
}
