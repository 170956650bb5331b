package bench

import (
	"fmt"
	"slices"

	"github.com/rhgd/rhgd/internal/stagetime"
)

// Case is one operation at one size.
type Case struct {
	// Group is the report section: "spd", "lyapunov", "expm", "stiefel",
	// "coupling", "epoch", "batch", or "stages" for the stage profiles.
	Group string
	// Op names the operation; with Size it names the Go benchmark
	// (BenchmarkLarge/<group>/<op>/<size>).
	Op, Size string
	// N is the size the scaling report plots against, FlopCount the
	// operation's nominal cost in N (for example "9n³") and Exponent its
	// exponent, which the fitted one is compared with.
	N         float64
	FlopCount string
	Exponent  float64
	// Floor is the Op of the LAPACK or BLAS call that this one rests on
	// ("" for none), at FloorSize ("": the same Size); the report gives the
	// ratio.
	Floor, FloorSize string
	// Peers are the bench/peers.py calls on the same inputs.
	Peers []string
	// Params are passed to the peers' load.
	Params map[string]any
	// Rounds caps the timing rounds of a case whose one call takes
	// seconds (0: Timing's); it also lowers Timing.MinRounds to it.
	Rounds int
	// Prepare writes the inputs into dir (none when dir is "") and returns
	// the rhgd call.
	Prepare func(dir string) (*Prepared, error)
}

// Prepared is a case ready to run.
type Prepared struct {
	// Run is the timed rhgd call.
	Run func() error
	// Output is what Run computed, for the fingerprint compared with the
	// peers' (nil when the outputs are not comparable).
	Output func() []float64
	// Files are the input .npy files by name.
	Files map[string]string
	// Clock, for a stage profile (group "stages"), accumulates the stages
	// that Run marks; the harness resets it after the warm-up and keeps
	// its means per call in Result.Stages.
	Clock *stagetime.Clock
	// Agreement is, for an opt-in lower-precision variant of a case (the
	// mixed-precision epoch), the relative difference of its final f from
	// the float64 path's (nil for others). Targets accept such a variant
	// only when it is within their tolerance.
	Agreement func() float64
}

// Name is the case's benchmark name: group/op/size.
func (c *Case) Name() string { return c.Group + "/" + c.Op + "/" + c.Size }

// Sizes lists the sizes of each group.
type Sizes struct {
	SPD      []int    // eig, gemm, exp/log/sqrt and the SPD exponential map
	Lyapunov []int    // A X + X A = C with A SPD
	Expm     []int    // the exponential of a general matrix
	Stiefel  [][2]int // (n, p)
	Coupling []int    // n×n couplings
	Epoch    []int    // d of the synthetic problem (n = 2d, r = d/2.5)
	Batch    [][2]int // (n, b): b matrices of order n at once
	// The stage profiles: Expm and LyapSym at n, the HINV epoch at d.
	StageExpm, StageLyap, StageEpoch []int
	// PeerMax caps the size of a peer too slow for the largest sizes.
	PeerMax map[string]int
}

// FullSizes are the sizes of `make bench`.
func FullSizes() Sizes {
	return Sizes{
		SPD:      []int{50, 200, 500, 1000, 2000},
		Lyapunov: []int{50, 100, 200, 500, 1000},
		Expm:     []int{50, 200, 500, 1000},
		Stiefel:  [][2]int{{1000, 50}, {10000, 100}, {100000, 50}},
		Coupling: []int{200, 1000, 2000},
		Epoch:    []int{50, 200, 500, 1000},
		// 32/33: torch's batched eigh switches paths there.
		Batch: [][2]int{{3, 1000}, {3, 10000}, {10, 1000}, {10, 10000}, {32, 1000}, {32, 10000},
			{33, 1000}, {33, 10000}, {64, 1000}, {64, 10000}, {100, 1000}, {100, 10000}},
		// scipy's logm and sqrtm (Schur-based, complex) take tens of
		// seconds at n = 2000.
		PeerMax:   map[string]int{"scipy.logm": 1000, "scipy.sqrtm": 1000},
		StageExpm: []int{50, 200, 500},
		StageLyap: []int{50, 100, 200, 500},
		// About 3 epochs per call (see epochStageCase), 3 rounds.
		StageEpoch: []int{1000},
	}
}

// QuickSizes are the sizes of `make bench-quick`: every case and peer,
// small.
func QuickSizes() Sizes {
	return Sizes{
		SPD:      []int{50, 100},
		Lyapunov: []int{50},
		Expm:     []int{50},
		Stiefel:  [][2]int{{500, 20}},
		Coupling: []int{100},
		Epoch:    []int{20},
		Batch:    [][2]int{{3, 100}, {33, 20}},
		// Each path once, tiny.
		StageExpm:  []int{50},
		StageLyap:  []int{50},
		StageEpoch: []int{20},
	}
}

// Cases returns every case at the sizes s.
func Cases(s Sizes) []Case {
	var cs []Case
	for _, n := range s.SPD {
		cs = append(cs, spdCases(n)...)
	}
	for _, n := range s.Lyapunov {
		cs = append(cs, lyapunovCase(n))
	}
	for _, n := range s.Expm {
		cs = append(cs, expmCase(n))
	}
	for _, np := range s.Stiefel {
		cs = append(cs, stiefelCases(np[0], np[1])...)
	}
	for _, n := range s.Coupling {
		cs = append(cs, couplingCases(n)...)
	}
	for _, d := range s.Epoch {
		cs = append(cs, epochCases(d)...)
	}
	for _, nb := range s.Batch {
		cs = append(cs, batchCases(nb[0], nb[1])...)
	}
	for _, n := range s.StageExpm {
		cs = append(cs, expmStageCase(n))
	}
	for _, n := range s.StageLyap {
		cs = append(cs, lyapStageCase(n))
	}
	for _, d := range s.StageEpoch {
		cs = append(cs, epochStageCase(d))
	}
	for i := range cs {
		c := &cs[i]
		var keep []string
		for _, p := range c.Peers {
			if m, ok := s.PeerMax[p]; !ok || c.N <= float64(m) {
				keep = append(keep, p)
			}
		}
		if slices.Contains(windowGroups, c.Group) {
			keep = append(keep, allThreadsPeer)
		}
		c.Peers = keep
	}
	return cs
}

// windowGroups are the groups whose cases also run with the one-thread
// windows off (allThreadsPeer): those whose calls are large enough to
// reach OpenBLAS's threads. The batched kernels and the couplings run
// rhgd's own goroutines or small calls.
var windowGroups = []string{"spd", "lyapunov", "expm", "stiefel", "epoch"}

func sizeN(n int) string     { return fmt.Sprintf("n=%d", n) }
func sizeNP(n, p int) string { return fmt.Sprintf("n=%d,p=%d", n, p) }

func itoa(n int) string { return fmt.Sprint(n) }
