package spectral

import "math"

// steqrMaxIt is dsteqr's MAXIT: the iterations allowed per eigenvalue, on
// average (n·steqrMaxIt in all).
const steqrMaxIt = 30

// steqr is LAPACK's dsteqr (compz = 'V'), as lapackx's syevql.c runs it,
// on the diagonal d and the couplings e (e[i] couples i and i+1), rotating
// the rows of vt: implicit QL or QR with Wilkinson's shift towards the end
// of each unreduced block with the smaller diagonal entry, deflation where
// |e_i| ≤ ε·√(|d_i||d_{i+1}|), each block scaled by a power of two into a
// safe range, and 2×2 blocks solved directly. It replaced EISPACK's tql2,
// whose explicit origin shift rounds every eigenvalue at the scale of ‖A‖
// (issue 20). It reports whether the iteration converged.
func steqr(n int, d, e, vt []float64) bool {
	const (
		eps    = 0x1p-53
		eps2   = eps * eps
		safmin = 0x1p-1022
	)
	ssfmax := math.Sqrt(1/safmin) / 3
	ssfmin := math.Sqrt(safmin) / eps2
	nmaxit, jtot := n*steqrMaxIt, 0
	for l1 := 0; l1 < n; {
		if l1 > 0 {
			e[l1-1] = 0
		}
		m := l1
		for ; m < n-1; m++ {
			tst := math.Abs(e[m])
			if tst == 0 {
				break
			}
			if tst <= math.Sqrt(math.Abs(d[m]))*math.Sqrt(math.Abs(d[m+1]))*eps {
				e[m] = 0
				break
			}
		}
		l, lend := l1, m
		lsv, lendsv := l, lend
		l1 = m + 1
		if lend == l {
			continue
		}
		var anorm float64
		for i := l; i <= lend; i++ {
			anorm = math.Max(anorm, math.Abs(d[i]))
		}
		for i := l; i < lend; i++ {
			anorm = math.Max(anorm, math.Abs(e[i]))
		}
		if anorm == 0 {
			continue
		}
		ex := 0
		if anorm > ssfmax || anorm < ssfmin {
			_, ex = math.Frexp(anorm)
			for i := l; i <= lend; i++ {
				d[i] = math.Ldexp(d[i], -ex)
			}
			for i := l; i < lend; i++ {
				e[i] = math.Ldexp(e[i], -ex)
			}
		}
		if math.Abs(d[lend]) < math.Abs(d[l]) {
			l, lend = lendsv, lsv
		}
		if lend > l {
			// QL: eigenvalues converge at the top, l.
			for l <= lend && jtot < nmaxit {
				for m = l; m < lend; m++ {
					if e[m]*e[m] <= (eps2*math.Abs(d[m]))*math.Abs(d[m+1])+safmin {
						break
					}
				}
				if m < lend {
					e[m] = 0
				}
				p := d[l]
				if m == l {
					l++
					continue
				}
				if m == l+1 {
					rt1, rt2, c, s := laev2(d[l], e[l], d[l+1])
					rotRows(vt, n, l, c, -s)
					d[l], d[l+1], e[l] = rt1, rt2, 0
					l += 2
					continue
				}
				jtot++
				g := (d[l+1] - p) / (2 * e[l])
				r := hypot(g, 1)
				g = d[m] - p + (e[l] / (g + math.Copysign(r, g)))
				s, c := 1.0, 1.0
				p = 0
				for i := m - 1; i >= l; i-- {
					f, b := s*e[i], c*e[i]
					c, s, r = lartg(g, f)
					if i != m-1 {
						e[i+1] = r
					}
					g = d[i+1] - p
					r = (d[i]-g)*s + 2*c*b
					p = s * r
					d[i+1] = g + p
					g = c*r - b
					rotRows(vt, n, i, c, s)
				}
				d[l] -= p
				e[l] = g
			}
		} else {
			// QR: eigenvalues converge at the bottom, l.
			for l >= lend && jtot < nmaxit {
				for m = l; m > lend; m-- {
					if e[m-1]*e[m-1] <= (eps2*math.Abs(d[m]))*math.Abs(d[m-1])+safmin {
						break
					}
				}
				if m > lend {
					e[m-1] = 0
				}
				p := d[l]
				if m == l {
					l--
					continue
				}
				if m == l-1 {
					rt1, rt2, c, s := laev2(d[l-1], e[l-1], d[l])
					rotRows(vt, n, l-1, c, -s)
					d[l-1], d[l], e[l-1] = rt1, rt2, 0
					l -= 2
					continue
				}
				jtot++
				g := (d[l-1] - p) / (2 * e[l-1])
				r := hypot(g, 1)
				g = d[m] - p + (e[l-1] / (g + math.Copysign(r, g)))
				s, c := 1.0, 1.0
				p = 0
				for i := m; i < l; i++ {
					f, b := s*e[i], c*e[i]
					c, s, r = lartg(g, f)
					if i != m {
						e[i-1] = r
					}
					g = d[i] - p
					r = (d[i+1]-g)*s + 2*c*b
					p = s * r
					d[i] = g + p
					g = c*r - b
					rotRows(vt, n, i, c, -s)
				}
				d[l] -= p
				e[l-1] = g
			}
		}
		if ex != 0 {
			for i := lsv; i <= lendsv; i++ {
				d[i] = math.Ldexp(d[i], ex)
			}
			for i := lsv; i < lendsv; i++ {
				e[i] = math.Ldexp(e[i], ex)
			}
		}
		if jtot >= nmaxit {
			return false
		}
	}
	return true
}

// rotRows applies the plane rotation (x, y) ← (c·x − s·y, s·x + c·y) to
// rows i and i+1 of the n×n vt.
func rotRows(vt []float64, n, i int, c, s float64) {
	x, y := vt[i*n:(i+1)*n], vt[(i+1)*n:(i+2)*n]
	for k := range x {
		a, b := x[k], y[k]
		y[k] = s*a + c*b
		x[k] = c*a - s*b
	}
}

// laev2 is LAPACK's dlaev2: the eigenvalues rt1 (the larger in absolute
// value) and rt2 of [[a, b], [b, c]], and the rotation (cs1, sn1) whose
// first row [cs1, sn1] is rt1's unit eigenvector.
func laev2(a, b, c float64) (rt1, rt2, cs1, sn1 float64) {
	sm, df := a+c, a-c
	adf, tb := math.Abs(df), b+b
	ab := math.Abs(tb)
	acmx, acmn := a, c
	if math.Abs(a) <= math.Abs(c) {
		acmx, acmn = c, a
	}
	var rt float64
	switch {
	case adf > ab:
		rt = adf * math.Sqrt(1+(ab/adf)*(ab/adf))
	case adf < ab:
		rt = ab * math.Sqrt(1+(adf/ab)*(adf/ab))
	default:
		rt = ab * math.Sqrt2
	}
	var sgn1, sgn2 int
	switch {
	case sm < 0:
		rt1, sgn1 = 0.5*(sm-rt), -1
		rt2 = (acmx/rt1)*acmn - (b/rt1)*b
	case sm > 0:
		rt1, sgn1 = 0.5*(sm+rt), 1
		rt2 = (acmx/rt1)*acmn - (b/rt1)*b
	default:
		rt1, rt2, sgn1 = 0.5*rt, -0.5*rt, 1
	}
	var cs float64
	if df >= 0 {
		cs, sgn2 = df+rt, 1
	} else {
		cs, sgn2 = df-rt, -1
	}
	switch {
	case math.Abs(cs) > ab:
		ct := -tb / cs
		sn1 = 1 / math.Sqrt(1+ct*ct)
		cs1 = ct * sn1
	case ab == 0:
		cs1, sn1 = 1, 0
	default:
		tn := -cs / tb
		cs1 = 1 / math.Sqrt(1+tn*tn)
		sn1 = tn * cs1
	}
	if sgn1 == sgn2 {
		cs1, sn1 = -sn1, cs1
	}
	return rt1, rt2, cs1, sn1
}

// lartg is LAPACK's dlartg (3.10): c, s and r with c·f + s·g = r and
// −s·f + c·g = 0, c ≥ 0 and r of the sign of f, scaled where f² or g²
// would over- or underflow.
func lartg(f, g float64) (c, s, r float64) {
	const (
		safmin = 0x1p-1022
		safmax = 1 / safmin
		rtmin  = 0x1p-511
		rtmax  = 0x1p511
	)
	f1, g1 := math.Abs(f), math.Abs(g)
	switch {
	case g == 0:
		return 1, 0, f
	case f == 0:
		return 0, math.Copysign(1, g), g1
	case f1 > rtmin && f1 < rtmax && g1 > rtmin && g1 < rtmax:
		d := math.Sqrt(f*f + g*g)
		r = math.Copysign(d, f)
		return f1 / d, g / r, r
	}
	u := math.Min(safmax, math.Max(safmin, math.Max(f1, g1)))
	fs, gs := f/u, g/u
	d := math.Sqrt(fs*fs + gs*gs)
	r = math.Copysign(d, f)
	return math.Abs(fs) / d, gs / r, r * u
}
