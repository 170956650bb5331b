//go:build !linux

package blas

// osPhysicalCores has no portable source outside Linux; PhysicalCores
// falls back to cpuid.
func osPhysicalCores() int { return 0 }
