package hyperrep

import (
	"fmt"
	"math"
	"math/rand/v2"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/internal/bimap"
)

// Data are the problem's matrices, labels and split, with a starting
// point: A holds N symmetric positive definite d×d matrices (N·d·d
// entries, row-major, one after the other), Y their labels; samples
// 0, …, NTrain−1 are the training set (the lower level) and the rest the
// validation set (the upper level). W0 (d×k) and Beta0 (k(k+1)/2) are the
// starting point; k is the order of the features WᵀA_iW.
type Data struct {
	N, D, K, NTrain int
	A, Y            []float64
	W0, Beta0       []float64
}

// Sizes are the parameters of generated data.
type Sizes struct {
	N, D, K, NTrain int
	// Noise is the standard deviation of the label noise.
	Noise float64
}

// PaperSizes are the sizes of the paper's experiment and of the authors'
// test_hyrep_spd.py: N = 200 matrices of order d = 50, k = 10, the first
// 100 for training, unit label noise.
var PaperSizes = Sizes{N: 200, D: 50, K: 10, NTrain: 100, Noise: 1}

// Generate draws data of the paper's sizes from seed (GenerateSizes).
func Generate(seed uint64) (*Data, error) { return GenerateSizes(PaperSizes, seed) }

// GenerateSizes draws data as the authors' code does, from seed:
// A_i = expm(sym(0.5·G_i)) with G_i standard normal (sym(X) = (X + Xᵀ)/2),
// a hidden W* (the Q factor of a standard normal d×k matrix) and
// β* ~ N(0, I), labels y_i = φ_i(W*)ᵀβ* + Noise·ε_i with ε_i ~ N(0, 1);
// the start is W0 = the first k columns of the identity and β0 ~ N(0, I).
func GenerateSizes(s Sizes, seed uint64) (*Data, error) {
	if err := checkSizes(s.N, s.D, s.K, s.NTrain); err != nil {
		return nil, err
	}
	if !(s.Noise >= 0) || math.IsInf(s.Noise, 0) {
		return nil, fmt.Errorf("hyperrep: %w: noise %v must be finite and non-negative", problems.ErrBadData, s.Noise)
	}
	n, d, k := s.N, s.D, s.K
	rnd := rand.New(rand.NewPCG(seed, 0x4e7e))
	data := &Data{N: n, D: d, K: k, NTrain: s.NTrain, A: make([]float64, n*d*d), Y: make([]float64, n),
		W0: make([]float64, d*k), Beta0: make([]float64, k*(k+1)/2)}
	sf := lapackx.NewSymFunc(d)
	for i := 0; i < n; i++ {
		if err := randSPD(data.A[i*d*d:(i+1)*d*d], sf, d, rnd); err != nil {
			return nil, fmt.Errorf("hyperrep: generating A_%d: %w", i, err)
		}
	}
	// W*: the Q factor (positive diagonal in R) of a standard normal d×k
	// matrix, drawn here rather than by stiefel's RandPoint so that the
	// data depend on the seed alone.
	wstar := make([]float64, d*k)
	for j := range wstar {
		wstar[j] = rnd.NormFloat64()
	}
	qr := lapackx.NewQR(d, k)
	if err := qr.Factorize(wstar); err != nil {
		return nil, fmt.Errorf("hyperrep: generating W*: %w", err)
	}
	qr.QTo(wstar)
	bstar := make([]float64, len(data.Beta0))
	for j := range bstar {
		bstar[j] = rnd.NormFloat64()
	}
	phi := make([]float64, n*len(bstar))
	if err := features(phi, data.A, wstar, n, d, k); err != nil {
		return nil, fmt.Errorf("hyperrep: generating labels: %w", err)
	}
	m := len(bstar)
	for i := range data.Y {
		var v float64
		for j, b := range bstar {
			v += phi[i*m+j] * b
		}
		data.Y[i] = v + s.Noise*rnd.NormFloat64()
	}
	for i := 0; i < k; i++ {
		data.W0[i*k+i] = 1
	}
	for j := range data.Beta0 {
		data.Beta0[j] = rnd.NormFloat64()
	}
	return data, nil
}

// features sets the rows of phi (n × k(k+1)/2) to vec(log(WᵀA_iW)) for the
// n matrices in a, by lapackx: the slow, independent path, for generating
// labels and for tests.
func features(phi, a, w []float64, n, d, k int) error {
	m := k * (k + 1) / 2
	aw, mi := make([]float64, d*k), make([]float64, k*k)
	sf := lapackx.NewSymFunc(k)
	impl := blas.Impl()
	for i := 0; i < n; i++ {
		impl.Dgemm(gblas.NoTrans, gblas.NoTrans, d, k, d, 1, a[i*d*d:(i+1)*d*d], d, w, k, 0, aw, k)
		impl.Dgemm(gblas.Trans, gblas.NoTrans, k, k, d, 1, w, k, aw, k, 0, mi, k)
		lapackx.Symmetrize(mi, k)
		if err := sf.Log(mi, mi); err != nil {
			return fmt.Errorf("log(WᵀA_%dW): %w", i, err)
		}
		bimap.VecUpper(phi[i*m:(i+1)*m], mi, k)
	}
	return nil
}

// randSPD sets a to expm(sym(½G)) for a standard normal d×d G, the
// paper's random SPD matrix; sf is of order d.
func randSPD(a []float64, sf *lapackx.SymFunc, d int, rnd *rand.Rand) error {
	for j := range a {
		a[j] = 0.5 * rnd.NormFloat64()
	}
	lapackx.Symmetrize(a, d)
	return sf.Exp(a, a)
}

func checkSizes(n, d, k, ntr int) error {
	switch {
	case d < 1 || k < 1 || k > d:
		return fmt.Errorf("hyperrep: %w: need d ≥ k ≥ 1, have d = %d, k = %d", problems.ErrBadData, d, k)
	case ntr <= 0 || ntr >= n:
		return fmt.Errorf("hyperrep: %w: need 0 < n_train < N, have n_train = %d, N = %d", problems.ErrBadData, ntr, n)
	}
	return nil
}

// Validate checks the data: sizes (d ≥ k ≥ 1, 0 < NTrain < N), slice
// lengths, finite entries, and every A_i symmetric to float32 rounding
// (problems.CheckSymmetric; New symmetrizes them) and positive definite (a
// Cholesky factorization succeeds). It returns an error wrapping
// problems.ErrBadData that names the first problem found.
func (data *Data) Validate() error {
	if data == nil {
		return fmt.Errorf("hyperrep: %w: no data", problems.ErrBadData)
	}
	n, d, k := data.N, data.D, data.K
	if err := checkSizes(n, d, k, data.NTrain); err != nil {
		return err
	}
	m := k * (k + 1) / 2
	for _, c := range []struct {
		name string
		v    []float64
		want int
	}{{"A", data.A, n * d * d}, {"y", data.Y, n}, {"W0", data.W0, d * k}, {"beta0", data.Beta0, m}} {
		if len(c.v) != c.want {
			return fmt.Errorf("hyperrep: %w: %s has %d entries, want %d (N = %d, d = %d, k = %d)", problems.ErrBadData, c.name, len(c.v), c.want, n, d, k)
		}
		for i, x := range c.v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("hyperrep: %w: %s[%d] = %v", problems.ErrBadData, c.name, i, x)
			}
		}
	}
	if err := problems.CheckSymmetric(nil, "A", data.A, d); err != nil {
		return fmt.Errorf("hyperrep: %w", err)
	}
	l := make([]float64, d*d)
	for i := 0; i < n; i++ {
		if err := lapackx.Cholesky(l, data.A[i*d*d:(i+1)*d*d], d); err != nil {
			return fmt.Errorf("hyperrep: %w: A_%d: %w", problems.ErrBadData, i, err)
		}
	}
	return nil
}

// arrays are the problem's .npz file; "m" is k(k+1)/2 and nt n_train.
func arrays(d *Data, nt *[]float64) []problems.Array {
	return []problems.Array{{Name: "A", Shape: "N×d×d", Data: &d.A}, {Name: "y", Shape: "N", Data: &d.Y},
		{Name: "W0", Shape: "d×k", Data: &d.W0}, {Name: "beta0", Shape: "m", Data: &d.Beta0}, {Name: "n_train", Data: nt}}
}

// Load reads data from a numpy .npz file with arrays A (N×d×d), y (N),
// W0 (d×k), beta0 (k(k+1)/2) and n_train (a scalar), and validates them
// (Validate).
func Load(path string) (*Data, error) {
	z, err := problems.OpenNPZ(path)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	data, dims := &Data{}, problems.Dims{}
	var nts []float64
	a := arrays(data, &nts)
	// Check every array's name and shape (beta0's size follows from W0's)
	// before reading any.
	if err := z.Check(dims, a[:3]...); err != nil {
		return nil, err
	}
	dims["m"] = dims["k"] * (dims["k"] + 1) / 2
	if err := z.Read(dims, a...); err != nil {
		return nil, err
	}
	n, nt := dims["N"], nts[0]
	if nt != math.Trunc(nt) || !(nt > 0 && nt < float64(n)) {
		return nil, fmt.Errorf("hyperrep: %w: %s: n_train = %v must be an integer in (0, N = %d)", problems.ErrBadData, path, nt, n)
	}
	data.N, data.D, data.K, data.NTrain = n, dims["d"], dims["k"], int(nt)
	if err := data.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}

// Save writes data to a .npz file that Load reads (arrays A, y, W0, beta0
// and n_train), so that other implementations can run the same problem.
func Save(path string, data *Data) error {
	if err := data.Validate(); err != nil {
		return err
	}
	nt := []float64{float64(data.NTrain)}
	return problems.SaveNPZ(path, problems.Dims{"N": data.N, "d": data.D, "k": data.K, "m": data.K * (data.K + 1) / 2}, arrays(data, &nt)...)
}
