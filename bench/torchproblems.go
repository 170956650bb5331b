package bench

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// TorchProblems is what bench/torch_problems.py measures: a user's own
// problems in PyTorch solved by rhgd.torch, beside what that user would
// run otherwise (a careful hand-written torch loop, the authors' code
// ported to torch, the same model on torch.linalg.eigh), one thread each
// (issue 28). Its rows join the targets table.
type TorchProblems struct {
	Quick   bool               `json:"quick"`
	CPU     string             `json:"cpu"`
	Cores   int                `json:"cores"`
	Threads int                `json:"threads"`
	Torch   string             `json:"torch"`
	Seconds map[string]float64 `json:"seconds"`
	Metric  *struct {
		EpochHandMs   float64 `json:"epoch_hand_ms"`
		EpochRhgdMs   float64 `json:"epoch_rhgd_ms"`
		EpochRatio    float64 `json:"epoch_ratio"`
		Tol           float64 `json:"tol"`
		TolHandS      float64 `json:"tol_hand_s"`
		TolRhgdS      float64 `json:"tol_rhgd_s"`
		TolRatio      float64 `json:"tol_ratio"`
		TolHandEpochs *int    `json:"tol_hand_epochs"`
		TolRhgdEpochs *int    `json:"tol_rhgd_epochs"`
		Command       string  `json:"command"`
	} `json:"metric"`
	Hyperrep *struct {
		Epoch map[string]struct {
			PortMs float64 `json:"port_ms"`
			RhgdMs float64 `json:"rhgd_ms"`
			Ratio  float64 `json:"ratio"`
		} `json:"epoch"`
		Tol *struct {
			RhgdS      float64 `json:"rhgd_s"`
			RhgdEpochs int     `json:"rhgd_epochs"`
			Port       map[string]struct {
				S       float64 `json:"s"`
				Reached bool    `json:"reached"`
				Epochs  int     `json:"epochs"`
			} `json:"port"`
			BestPort string   `json:"best_port"`
			Ratio    *float64 `json:"ratio"`
			Tol      float64  `json:"tol"`
		} `json:"tol"`
		Command string `json:"command"`
	} `json:"hyperrep"`
	SPDNet *struct {
		RhgdMs float64 `json:"rhgd_ms"`
		EighMs float64 `json:"eigh_ms"`
		Ratio  float64 `json:"ratio"`
		// Bound is eigh's epoch over the model's without eigen-layers, both
		// at CG's fixed work: the most any eigen-layers can gain (0: not
		// measured).
		Bound       float64 `json:"bound"`
		BoundEighMs float64 `json:"bound_eigh_ms"`
		BoundNoneMs float64 `json:"bound_none_ms"`
		Command     string  `json:"command"`
	} `json:"spdnet"`
	// Err is why the script did not run or failed ("" when it ran).
	Err string `json:"-"`
}

// RunTorchProblems runs script (bench/torch_problems.py) in python with
// the library at lib, writing its JSON into dir, and reads it back. A
// failure is in the result's Err, with the script's last output lines.
func RunTorchProblems(python, script, lib, dir string, quick bool) *TorchProblems {
	out := filepath.Join(dir, "torch_problems.json")
	args := []string{script, "--json", out}
	if quick {
		args = append(args, "--quick")
	}
	cmd := exec.Command(python, args...)
	cmd.Env = append(os.Environ(), "RHGD_LIBRARY="+lib, "PYTHONPATH="+filepath.Join(filepath.Dir(filepath.Dir(script)), "python"))
	log, err := cmd.CombinedOutput()
	if err != nil {
		lines := strings.Split(strings.TrimSpace(string(log)), "\n")
		return &TorchProblems{Err: fmt.Sprintf("%s %s: %v: %s", python, strings.Join(args, " "), err,
			strings.Join(lines[max(0, len(lines)-5):], " / "))}
	}
	tp, err := ReadTorchProblems(out)
	if err != nil {
		return &TorchProblems{Err: err.Error()}
	}
	return tp
}

// ReadTorchProblems reads bench/torch_problems.py's JSON.
func ReadTorchProblems(path string) (*TorchProblems, error) {
	js, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var tp TorchProblems
	if err := json.Unmarshal(js, &tp); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &tp, nil
}

// torchTarget is a target judged on TorchProblems.
type torchTarget struct {
	desc  string
	judge func(tp *TorchProblems) (value string, met, ok bool)
	why   string
}

var hyperrepEstimators = []string{"cg", "ns", "hinv", "ad"}

var torchTargets = []torchTarget{
	{"Metric learning in torch (d = 10) per epoch, CG, ≥ 1.2× a careful hand-written torch loop (issue 28)", func(tp *TorchProblems) (string, bool, bool) {
		m := tp.Metric
		if m == nil {
			return "", false, false
		}
		return fmt.Sprintf("%.2f× (%.2f ms against %.2f)", m.EpochRatio, m.EpochRhgdMs, m.EpochHandMs), m.EpochRatio >= 1.2, true
	}, whyTorchMetricEpoch},
	{"Metric learning in torch to 1e-2‖grad F₀‖ (true hypergradient) ≥ 3× the hand loop", func(tp *TorchProblems) (string, bool, bool) {
		m := tp.Metric
		if m == nil {
			return "", false, false
		}
		return fmt.Sprintf("%.1f× (%.3f s in %s epochs against %.3f s in %s)", m.TolRatio, m.TolRhgdS, epochsText(m.TolRhgdEpochs),
			m.TolHandS, epochsText(m.TolHandEpochs)), m.TolRatio >= 3 && m.TolRhgdEpochs != nil, true
	}, ""},
	{"Hyper-representation in torch at the paper's size per epoch ≥ 3× the authors' port for CG, NS, HINV and AD", func(tp *TorchProblems) (string, bool, bool) {
		h := tp.Hyperrep
		if h == nil {
			return "", false, false
		}
		var parts []string
		worst := math.Inf(1)
		for _, e := range hyperrepEstimators {
			r, ok := h.Epoch[e]
			if !ok {
				return "", false, false
			}
			parts = append(parts, fmt.Sprintf("%s %.1f×", e, r.Ratio))
			worst = min(worst, r.Ratio)
		}
		return strings.Join(parts, ", "), worst >= 3, true
	}, ""},
	{"Hyper-representation in torch to 1e-2‖ĝ₀‖ (true hypergradient) ≥ 15× the authors' port", func(tp *TorchProblems) (string, bool, bool) {
		h := tp.Hyperrep
		if h == nil || h.Tol == nil || h.Tol.Ratio == nil {
			return "", false, false
		}
		t := h.Tol
		p := t.Port[t.BestPort]
		bound := ""
		if !p.Reached {
			bound = "> " // the port stopped at its cap: its time is a lower bound
		}
		names := slices.Sorted(maps.Keys(t.Port))
		return fmt.Sprintf("%s%.1f× (rhgd.torch adaptive %.2f s in %d epochs; the port's fastest of %s: %s %.1f s in %d epochs)",
			bound, *t.Ratio, t.RhgdS, t.RhgdEpochs, strings.Join(names, ", "), t.BestPort, p.S, p.Epochs), *t.Ratio >= 15, true
	}, ""},
	{"SPDNet in torch (examples/torch_spdnet.py's shape) per epoch ≥ 2× the same model on torch.linalg.eigh", func(tp *TorchProblems) (string, bool, bool) {
		s := tp.SPDNet
		if s == nil {
			return "", false, false
		}
		txt := fmt.Sprintf("%.2f× (%.2f ms against %.2f)", s.Ratio, s.RhgdMs, s.EighMs)
		if s.Bound > 0 {
			txt += fmt.Sprintf("; the most any eigen-layers can gain: %.2f× (eigh %.2f ms, none %.2f)", s.Bound, s.BoundEighMs, s.BoundNoneMs)
		}
		return txt, s.Ratio >= 2, true
	}, whyTorchSPDNet},
}

func epochsText(k *int) string {
	if k == nil {
		return "(not reached)"
	}
	return fmt.Sprint(*k)
}

// writeTorchTargets adds the rows of torchTargets to the targets table.
func writeTorchTargets(b *strings.Builder, tp *TorchProblems) {
	for _, t := range torchTargets {
		switch {
		case tp == nil:
			fmt.Fprintf(b, "| %s | not measured in this run | | |\n", t.desc)
		case tp.Err != "":
			fmt.Fprintf(b, "| %s | not measured: bench/torch_problems.py failed | | |\n", t.desc)
		case tp.Quick:
			fmt.Fprintf(b, "| %s | not measured in this run (-quick: tiny sizes) | | |\n", t.desc)
		default:
			v, met, ok := t.judge(tp)
			targetRow(b, t.desc, v, met, ok, func() string { return cmpOr(t.why, "Not investigated.") })
		}
	}
}

// writeTorchProblems writes the section on TorchProblems: how it was
// measured, or why it was not.
func writeTorchProblems(b *strings.Builder, tp *TorchProblems) {
	if tp == nil {
		return
	}
	b.WriteString("## A user's own problems in PyTorch (rhgd.torch)\n\n")
	if tp.Err != "" {
		fmt.Fprintf(b, "bench/torch_problems.py failed: %s\n\n", tp.Err)
		return
	}
	fmt.Fprintf(b, "bench/torch_problems.py%s, %s (%d cores), torch %s; torch and OpenBLAS on %d thread; every side in one process, "+
		"rounds interleaved, medians. The targets table above judges these rows. Commands (each also prints its own tables):\n\n",
		map[bool]string{true: " --quick (tiny sizes: the harness runs; nothing is judged)", false: ""}[tp.Quick], tp.CPU, tp.Cores, tp.Torch, tp.Threads)
	if m := tp.Metric; m != nil {
		fmt.Fprintf(b, "- `%s` (%.0f s): per epoch rhgd.torch %.2f ms, the hand loop %.2f ms; to %g‖grad F₀‖ rhgd.torch %.3f s, the hand loop %.3f s.\n",
			m.Command, tp.Seconds["metric"], m.EpochRhgdMs, m.EpochHandMs, m.Tol, m.TolRhgdS, m.TolHandS)
	}
	if h := tp.Hyperrep; h != nil {
		var parts []string
		for _, e := range hyperrepEstimators {
			if r, ok := h.Epoch[e]; ok {
				parts = append(parts, fmt.Sprintf("%s %.1f ms against the port's %.1f", e, r.RhgdMs, r.PortMs))
			}
		}
		fmt.Fprintf(b, "- `%s` (%.0f s): per epoch %s.\n", h.Command, tp.Seconds["hyperrep"], strings.Join(parts, "; "))
	}
	if s := tp.SPDNet; s != nil {
		fmt.Fprintf(b, "- `%s` (%.0f s): per epoch %.2f ms with rhgd.torch's eigen-layers, %.2f ms on torch.linalg.eigh; "+
			"at CG's fixed 10 products, %.2f ms on eigh and %.2f ms without eigen-layers.\n",
			s.Command, tp.Seconds["spdnet"], s.RhgdMs, s.EighMs, s.BoundEighMs, s.BoundNoneMs)
	}
	b.WriteString("\n")
}
