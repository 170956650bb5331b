package solver

import (
	"fmt"
	"math"
	"strings"
)

// ApplyAdaRHD sets the rules of AdaRHD (Shi, Xiao and Jiang, "An Adaptive
// Algorithm for Bilevel Optimization on Riemannian Manifolds", NeurIPS
// 2025, arXiv 2504.06042) on s: AdaGrad-norm lower and upper steps
// (Lower = LowerRule{AdaGrad: true}, Upper = UpperRule{AdaGrad: true})
// and RelGradTol = 0, keeping its step sizes (the initial steps 1/β₀ =
// EtaY and 1/α₀ = EtaX), budgets, estimator and the rest: preset=adarhd
// over a problem's paper settings, beside ApplyAdaptive's preset=adaptive.
//
// The rules follow the authors' code, github.com/JQ-ux/AdaRHD-S at commit
// bd230fc, where it and the paper's text might differ (the PDF's text
// could not be extracted here, so the code is the reference throughout):
//
//   - Lower level (src/AdaRHD_optimizer.py, lines 78–102): each epoch
//     starts from β = 1/EtaY (β is local to AdaRHDstep, so it restarts at
//     args.beta every epoch); each step computes r = grad_y g(x_k, y),
//     steps y ← R_y(−r/β) with the β before the update, then sets β² ←
//     β² + ‖r‖², and ends the loop once ‖r‖² ≤ 1/Epochs, the norm at the
//     point before that step (the scripts' tol_y = 1/args.epoch,
//     run_simple_spd_gr_AdaRHD.py lines 114–120). The loop takes at most a
//     cap of steps, InnerIters for the first five epochs, then 50 more
//     every five epochs, up to 500 (y_subiter, lines 242–243: the
//     scripts start it at 50, or 100 for the deep hyper-representation).
//   - Upper level (src/AdaRHD_optimizer.py, lines 126–130, and
//     run_simple_spd_gr_AdaRHD.py, lines 213–223): x ← R_x(−ĝ/α) with α
//     from 1/EtaX, then α² ← α² + ‖ĝ‖², except in an epoch whose ‖ĝ‖²
//     exceeds five times the first epoch's (the scripts' hygrad_flag),
//     where α stays.
//   - The linear system is the estimator's (Settings.Estimator). The code
//     solves it by CG from zero (AdaRHD_utils.py, lines 25–85) to
//     ‖r‖² < 1e-10 or v_subiter + 1 = 51 iterations: the nearest of
//     rhgd's is cg:maxiter=51 with a relative tolerance (CG.Tol bounds
//     ‖r‖/‖b‖, the code's bound is absolute); or by gradient descent with
//     its own AdaGrad step (lines 88–153, AdaRHD-GD), which is AdaGD
//     (the estimator adagd).
//
// Left out, as parts of the scripts rather than of the method: the
// warm-up of y by InnerIters fixed steps 1/β₀ before the first epoch
// (lines 162–174), and the stop at ‖ĝ‖² < 1e-4 (line 238; 1e-3 for the
// deep hyper-representation), which is GradTol = 1e-2 here.
func (s *Settings) ApplyAdaRHD() {
	s.Lower = LowerRule{AdaGrad: true}
	s.Upper = UpperRule{AdaGrad: true}
	s.RelGradTol = 0
}

// AdaRHDSettings returns the settings of ApplyAdaRHD over the defaults.
func AdaRHDSettings() Settings {
	var s Settings
	s.ApplyAdaRHD()
	return s
}

// The constants of AdaRHD's lower step cap (run_simple_spd_gr_AdaRHD.py,
// lines 242–243): every adaCapEvery epochs the cap grows by adaCapGrowth
// steps, up to adaCapMax.
const (
	adaCapEvery  = 5
	adaCapGrowth = 50
	adaCapMax    = 500
	// adaUpperGuard: an epoch whose ‖ĝ‖² exceeds adaUpperGuard times the
	// first epoch's leaves α as it is (the scripts' hygrad_flag).
	adaUpperGuard = 5
)

// adaLowerCap is the lower step cap of epoch k (from 0) for a first cap
// s0: the scripts' y_subiter, which starts at s0 and after every fifth
// epoch becomes min(y_subiter + 50, 500).
func adaLowerCap(s0, k int) int {
	if k < adaCapEvery {
		return s0
	}
	return min(s0+adaCapGrowth*(k/adaCapEvery), adaCapMax)
}

// adaLowerStep takes AdaRHD's lower step s of the epoch from the current
// y with gradient r.gy: y ← R_y(−r.gy/β), then β² ← β² + ‖r.gy‖². It
// returns ‖r.gy‖² and whether it is at most 1/Epochs (the loop's end).
func (r *RHGD) adaLowerStep(s int) (gn2 float64, done bool, err error) {
	my, y := r.my, r.y
	if s == 0 {
		r.adaBeta2 = 1 / (r.s.EtaY * r.s.EtaY)
	}
	gn2 = my.Inner(y, r.gy, r.gy)
	if err := my.Retract(r.by, y, r.gy, -1/math.Sqrt(r.adaBeta2)); err != nil {
		return gn2, false, fmt.Errorf("AdaGrad lower retraction at epoch %d, step %d: %w", r.epoch, s, err)
	}
	copy(y, r.by)
	r.cur.YID = NewID()
	r.adaBeta2 += gn2
	return gn2, gn2 <= 1/float64(r.s.Epochs), nil
}

// adaUpperStep returns AdaRHD's upper step 1/α for this epoch and
// accumulates ‖ĝ‖² = hgNorm² into α² for the next, unless it exceeds
// adaUpperGuard times the first epoch's.
func (r *RHGD) adaUpperStep(hgNorm float64) float64 {
	step := 1 / math.Sqrt(r.adaAlpha2)
	if g2 := hgNorm * hgNorm; g2 <= adaUpperGuard*r.hgNorm0*r.hgNorm0 {
		r.adaAlpha2 += g2
	}
	return step
}

// PresetInfo describes a preset of ParseSettings' PresetKey, the CLI's
// -preset, the C ABI's and Python's preset: a named set of rules applied
// over a problem's paper settings.
type PresetInfo struct {
	// Name is the preset's value: "paper", "adaptive", "adarhd".
	Name string
	// Doc says what it sets, in one line.
	Doc string
}

// presetTable is the one table of presets, in the order PresetNames
// lists them.
var presetTable = []struct {
	PresetInfo
	apply func(*Settings)
}{
	{PresetInfo{"paper", "the paper's fixed lower steps and step sizes (the settings as they are)"}, func(*Settings) {}},
	{PresetInfo{"adaptive", "exact or adaptive lower solves and BB upper steps (AdaptiveSettings)"}, (*Settings).ApplyAdaptive},
	{PresetInfo{"adarhd", "AdaRHD's AdaGrad-norm lower and upper steps (AdaRHDSettings)"}, (*Settings).ApplyAdaRHD},
}

// Presets returns the presets, in order.
func Presets() []PresetInfo {
	out := make([]PresetInfo, len(presetTable))
	for i, p := range presetTable {
		out[i] = p.PresetInfo
	}
	return out
}

// PresetNames lists the presets' names for a message: "paper, adaptive
// or adarhd".
func PresetNames() string {
	names := make([]string, len(presetTable))
	for i, p := range presetTable {
		names[i] = p.Name
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// ApplyPreset applies the named preset to s; an unknown name is an error
// wrapping ErrBadSetting that lists the presets.
func (s *Settings) ApplyPreset(name string) error {
	for _, p := range presetTable {
		if p.Name == name {
			p.apply(s)
			return nil
		}
	}
	return fmt.Errorf("%w: preset=%q: want %s", ErrBadSetting, name, PresetNames())
}

// Preset returns the name of the preset whose rules s has: adarhd when
// either AdaGrad rule is on, adaptive when another rule is, else paper.
func (s *Settings) Preset() string {
	switch {
	case s.Lower.AdaGrad || s.Upper.AdaGrad:
		return "adarhd"
	case s.Lower.UseLowerSolve || s.Lower.Tol > 0 || s.Lower.BB || s.Upper.BB:
		return "adaptive"
	}
	return "paper"
}
