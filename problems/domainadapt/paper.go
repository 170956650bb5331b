package domainadapt

import (
	officecaltech "github.com/rhgd/rhgd/data/office-caltech10"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
)

// Paper holds the settings of the authors' run (test_da_barycenter.py):
// η_x = 0.5, 100 epochs, the CG estimator with at most 200 iterations. The
// authors set M to its closed form M*(Γ) before each estimate instead of
// taking lower steps; here the run starts at M*(Γ₀) (Instance.Y0) and
// follows it with S = 20 lower steps of η_y = 0.25 per epoch, which keep
// ‖grad_M g‖ below 3·10⁻⁸ over the 100 epochs of the DeCAF6 pairs (the
// lower Hessian's spectrum lies in [2, 2 max h], so η_y must stay below
// 1/max h; η_y = 0.5 diverges from M = I on D→W). Its estimators, in the
// paper's order, have the authors' settings (CG: 200 iterations; NS:
// γ = 0.1, 50 terms); Settings.Estimator is the CG one.
var Paper = problems.Paper{
	Settings:   solver.Settings{EtaX: 0.5, EtaY: 0.25, InnerIters: 20, Epochs: 100, Estimator: &solver.CG{MaxIter: 200, Tol: 1e-10}},
	Estimators: []string{"hinv", "cg:maxiter=200,tol=1e-10", "ns:gamma=0.1,terms=50", "ad"},
}

// PaperBaselineLambda returns the paper's λ for the OT-SKH baseline of a
// pair: 10⁻³ for W→D and 5·10⁻³ otherwise (Sec. 4.4). It applies to the
// squared Euclidean costs of the preprocessed features as they are (POT's
// ot.sinkhorn without normalization of the cost matrix): on the pooled
// DeCAF6 features those lie in [2.4·10⁻⁴, 2.8·10⁻³] for D→W, below λ, so
// the paper's OT-SKH plans are close to the independent plan. The authors'
// code uses λ = 10⁻⁴ instead, which reproduces the table's OT-SKH D→W entry
// (93.90) exactly (TestPaperBaselines).
func PaperBaselineLambda(source, target officecaltech.Domain) float64 {
	if source == officecaltech.Webcam && target == officecaltech.DSLR {
		return 1e-3
	}
	return 5e-3
}

// PaperAccuracy returns the entries of the paper's table (Sec. 4.4) for a
// pair with DeCAF6 features: the bilevel method, OT-SKH and OT-EMD, in
// percent, and whether the pair is in the table.
func PaperAccuracy(source, target officecaltech.Domain) (bilevel, skh, emd float64, ok bool) {
	type row struct{ b, s, e float64 }
	A, C, D, W := officecaltech.Amazon, officecaltech.Caltech, officecaltech.DSLR, officecaltech.Webcam
	table := map[[2]officecaltech.Domain]row{
		{A, C}: {78.70, 76.83, 66.67}, {A, D}: {80.25, 75.80, 47.77}, {A, W}: {69.83, 69.83, 45.76},
		{C, A}: {88.21, 84.35, 67.52}, {C, D}: {80.25, 78.34, 36.31}, {C, W}: {68.47, 68.14, 42.71},
		{D, A}: {82.74, 80.92, 62.17}, {D, C}: {75.69, 71.57, 59.71}, {D, W}: {97.97, 93.90, 85.08},
		{W, A}: {83.49, 74.17, 55.41}, {W, C}: {73.62, 67.02, 51.16}, {W, D}: {98.73, 87.26, 96.82},
	}
	r, ok := table[[2]officecaltech.Domain{source, target}]
	return r.b, r.s, r.e, ok
}
