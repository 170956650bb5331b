package bench

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/rhgd/rhgd/internal/stagetime"
)

// Config is one run of the harness.
type Config struct {
	Sizes  Sizes
	Timing Timing
	// Peer runs the peer calls; nil times rhgd alone.
	Peer *Peer
	// Dir receives each case's .npy inputs, removed after the case.
	Dir string
	// Match selects the cases to run by name (nil: all).
	Match func(name string) bool
	// Log receives a line per case (nil: nothing).
	Log io.Writer
}

// Result is what one case measured.
type Result struct {
	Case *Case
	// Seconds per call of rhgd, one per round.
	Seconds []float64
	Peers   []PeerResult
	// Err is why the case has no times ("" when it has).
	Err string
	// Stages is a stage profile's mean time per call of each stage (nil
	// for other cases).
	Stages []stagetime.Stage
	// Agreement is Prepared.Agreement after the rounds (nil without one).
	Agreement *float64
}

// PeerResult is one peer's side of a case.
type PeerResult struct {
	Name string
	// Seconds per call, one per round, and each round's ratio of the
	// peer's time to rhgd's.
	Seconds, Ratios []float64
	// Diff is the relative difference of the outputs' fingerprints,
	// |f_peer − f_rhgd| / (‖out‖·‖w‖) with the weights w_k = sin(k+1): a
	// few units of rounding when both compute the same thing (NaN when the
	// case's outputs are not compared).
	Diff float64
	Err  string
}

// Median is rhgd's median seconds per call (NaN without times).
func (r *Result) Median() float64 { return median(r.Seconds) }

// Ratio is the median of the per-round ratios peer/rhgd.
func (p *PeerResult) Ratio() float64 { return median(p.Ratios) }

// Run times every case of cfg.Sizes that cfg.Match selects.
func Run(cfg Config) []Result {
	var out []Result
	cases := Cases(cfg.Sizes)
	for i := range cases {
		c := &cases[i]
		if cfg.Match != nil && !cfg.Match(c.Name()) {
			continue
		}
		r := runCase(c, cfg)
		if cfg.Log != nil {
			fmt.Fprintln(cfg.Log, r.line())
		}
		out = append(out, r)
	}
	return out
}

func runCase(c *Case, cfg Config) (res Result) {
	res.Case = c
	dir := filepath.Join(cfg.Dir, strings.NewReplacer("/", "_", "=", "", ",", "_").Replace(c.Name()))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		res.Err = err.Error()
		return res
	}
	defer os.RemoveAll(dir)
	prep, err := c.Prepare(dir)
	if err != nil {
		res.Err = err.Error()
		return res
	}
	runtime.GC()
	if err := prep.Run(); err != nil { // the warm-up
		res.Err = err.Error()
		return res
	}
	if prep.Clock != nil {
		prep.Clock.Reset()
		defer func() { res.Stages = prep.Clock.Stages() }()
	}
	if prep.Agreement != nil {
		defer func() {
			if res.Err == "" {
				v := prep.Agreement()
				res.Agreement = &v
			}
		}()
	}
	var live []int // indices of the peers that loaded
	if (cfg.Peer != nil || onlyGoPeers(c.Peers)) && len(c.Peers) > 0 {
		var out []float64
		if prep.Output != nil {
			out = prep.Output()
		}
		fp, scale := fingerprint(out), norm(out)*weightNorm(len(out)) // once per case, not per peer
		for i, name := range c.Peers {
			pr := PeerResult{Name: name, Diff: math.NaN()}
			f, err := loadPeer(cfg.Peer, name, prep, c)
			if err != nil {
				pr.Err = err.Error()
			} else {
				if out != nil {
					pr.Diff = math.Abs(f-fp) / scale
				}
				live = append(live, i)
			}
			res.Peers = append(res.Peers, pr)
		}
		if cfg.Peer != nil {
			defer cfg.Peer.Drop()
		}
	}
	rounds, minRounds := cfg.Timing.Rounds, cfg.Timing.MinRounds
	if c.Rounds > 0 {
		rounds, minRounds = min(rounds, c.Rounds), min(minRounds, c.Rounds)
	}
	start := time.Now()
	for round := 0; round < rounds; round++ {
		if round >= max(minRounds, 1) && time.Since(start) > cfg.Timing.Budget {
			break
		}
		t, err := measure(prep.Run, cfg.Timing.MinTime)
		if err != nil {
			res.Err = err.Error()
			return res
		}
		res.Seconds = append(res.Seconds, t)
		for _, i := range live {
			pr := &res.Peers[i]
			if pr.Err != "" {
				continue
			}
			s, err := timePeer(cfg.Peer, pr.Name, prep, cfg.Timing.MinTime)
			if err != nil {
				pr.Err = err.Error()
				continue
			}
			pr.Seconds = append(pr.Seconds, s)
			pr.Ratios = append(pr.Ratios, s/t)
		}
	}
	return res
}

// fingerprint is Σ_k v_k sin(k+1), as bench/peers.py computes it.
func fingerprint(v []float64) float64 {
	var s float64
	for k, x := range v {
		s += x * math.Sin(float64(k+1))
	}
	return s
}

// weightNorm is ‖(sin 1, …, sin n)‖₂.
func weightNorm(n int) float64 {
	var s float64
	for k := 1; k <= n; k++ {
		w := math.Sin(float64(k))
		s += w * w
	}
	return math.Sqrt(s)
}

func norm(v []float64) float64 { return math.Sqrt(dotSelf(v)) }

// line is the case's one-line summary for the log.
func (r *Result) line() string {
	if r.Err != "" {
		return fmt.Sprintf("%-32s error: %s", r.Case.Name(), r.Err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-32s rhgd %s", r.Case.Name(), fmtSeconds(r.Median()))
	for _, p := range r.Peers {
		if p.Err != "" {
			fmt.Fprintf(&b, "  %s: error", p.Name)
			continue
		}
		fmt.Fprintf(&b, "  %s %.2f×", p.Name, p.Ratio())
	}
	return b.String()
}

// fmtSeconds prints t with a unit that keeps three or four digits (t may
// be negative: a stage profile's difference of two noisy times).
func fmtSeconds(t float64) string {
	switch a := math.Abs(t); {
	case math.IsNaN(t):
		return "—"
	case a >= 1:
		return fmt.Sprintf("%.3g s", t)
	case a >= 1e-3:
		return fmt.Sprintf("%.3g ms", t*1e3)
	default:
		return fmt.Sprintf("%.3g µs", t*1e6)
	}
}
