package spdnet

import (
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
)

// PaperTrainPerClass is the number of training matrices of each class in
// the paper's split (5 of the 10 objects of each ETH-80 class; the other 5
// validate).
const PaperTrainPerClass = 5

// Paper is the paper's experiment (the defaults of the authors'
// test_deep_hyrep_spd.py): η_x = η_y = 0.1, S = 50 lower steps, K = 30
// epochs.
//
// Its estimators: CG with at most 50 iterations to a relative residual of
// 1e−10; NS with the authors' T = 30 terms but γ from the power-iteration
// estimate of λ_max(H) (1/λ̂), because the authors' γ = 0.05 diverges
// here: λ_max(H) ≈ 42 at the start on the default split, above 2/γ = 40
// (the solver refuses it).
//
// Its minibatch sizes for RSHGD: 32 samples (of 40) for each, the
// authors' batch size. At the paper's fixed η = 0.1 the sampled steps
// leave γ in a noise ball around γ*, and RSHGD's validation accuracy
// fluctuates: 77 ± 9% after 30 epochs over ten splits, against 97% for
// RHGD (TestPaperRuns). Smaller steps fix it, as the theory of stochastic
// methods asks: η_x = η_y = 0.02 for 150 epochs reached 92.5–100% on four
// splits. The reported f is exact (Report = 0).
var Paper = problems.Paper{
	Settings:   solver.Settings{EtaX: 0.1, EtaY: 0.1, InnerIters: 50, Epochs: 30},
	Estimators: []string{"hinv", "cg:maxiter=50,tol=1e-10", "ns:terms=30", "ad"},
	Batches:    &solver.Batches{Lower: 32, Upper: 32, Cross: 32, Hess: 32},
}
