//go:build cgo && !purego

/* Body of lapackx_syevql, included twice by syevql.c: once compiled for AVX2
 * and FMA (RHGD_AVX2 defined, names suffixed _avx2) and once for the base
 * instruction set (_base). FN(x) gives the suffixed name. Only the vector
 * kernels differ; the algorithm text is shared so the two cannot drift. */

/* dot returns sum x[k] y[k], k < n. */
static inline double FN(dot)(int n, const double *restrict x, const double *restrict y) {
	int k = 0;
	double s = 0;
#ifdef RHGD_AVX2
	__m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd();
	for (; k + 8 <= n; k += 8) {
		a0 = _mm256_fmadd_pd(_mm256_loadu_pd(x + k), _mm256_loadu_pd(y + k), a0);
		a1 = _mm256_fmadd_pd(_mm256_loadu_pd(x + k + 4), _mm256_loadu_pd(y + k + 4), a1);
	}
	for (; k + 4 <= n; k += 4)
		a0 = _mm256_fmadd_pd(_mm256_loadu_pd(x + k), _mm256_loadu_pd(y + k), a0);
	s = hsum(_mm256_add_pd(a0, a1));
#endif
	for (; k < n; k++)
		s += x[k] * y[k];
	return s;
}

/* axpy sets y += a x over n entries. */
static inline void FN(axpy)(int n, double a, const double *restrict x, double *restrict y) {
	int k = 0;
#ifdef RHGD_AVX2
	__m256d va = _mm256_set1_pd(a);
	for (; k + 4 <= n; k += 4)
		_mm256_storeu_pd(y + k, _mm256_fmadd_pd(va, _mm256_loadu_pd(x + k), _mm256_loadu_pd(y + k)));
#endif
	for (; k < n; k++)
		y[k] += a * x[k];
}

/* dotaxpy returns sum x[k] u[k] and sets y += f x, in one pass over x: the
 * symmetric matrix-vector product of the Householder step, one row of the
 * stored triangle at a time. */
static inline double FN(dotaxpy)(int n, const double *restrict x, const double *restrict u, double f, double *restrict y) {
	int k = 0;
	double s = 0;
#ifdef RHGD_AVX2
	__m256d acc = _mm256_setzero_pd(), vf = _mm256_set1_pd(f);
	for (; k + 4 <= n; k += 4) {
		__m256d vx = _mm256_loadu_pd(x + k);
		acc = _mm256_fmadd_pd(vx, _mm256_loadu_pd(u + k), acc);
		_mm256_storeu_pd(y + k, _mm256_fmadd_pd(vf, vx, _mm256_loadu_pd(y + k)));
	}
	s = hsum(acc);
#endif
	for (; k < n; k++) {
		s += x[k] * u[k];
		y[k] += x[k] * f;
	}
	return s;
}

/* syr2 sets r -= f e + g d over n entries: one row of the rank-2 update. */
static inline void FN(syr2)(int n, double *restrict r, double f, const double *restrict e, double g, const double *restrict d) {
	int k = 0;
#ifdef RHGD_AVX2
	__m256d vf = _mm256_set1_pd(f), vg = _mm256_set1_pd(g);
	for (; k + 4 <= n; k += 4) {
		__m256d t = _mm256_fnmadd_pd(vf, _mm256_loadu_pd(e + k), _mm256_loadu_pd(r + k));
		_mm256_storeu_pd(r + k, _mm256_fnmadd_pd(vg, _mm256_loadu_pd(d + k), t));
	}
#endif
	for (; k < n; k++)
		r[k] -= f * e[k] + g * d[k];
}

/* rot applies the plane rotation (x, y) <- (c x - s y, s x + c y). */
static inline void FN(rot)(int n, double *restrict x, double *restrict y, double c, double s) {
	int k = 0;
#ifdef RHGD_AVX2
	__m256d vc = _mm256_set1_pd(c), vs = _mm256_set1_pd(s);
	for (; k + 4 <= n; k += 4) {
		__m256d a = _mm256_loadu_pd(x + k), b = _mm256_loadu_pd(y + k);
		_mm256_storeu_pd(y + k, _mm256_fmadd_pd(vs, a, _mm256_mul_pd(vc, b)));
		_mm256_storeu_pd(x + k, _mm256_fnmadd_pd(vs, b, _mm256_mul_pd(vc, a)));
	}
#endif
	for (; k < n; k++) {
		double a = x[k], b = y[k];
		y[k] = s * a + c * b;
		x[k] = c * a - s * b;
	}
}

/* tred is EISPACK's tred2 with the transformation stored transposed (the
 * procedure's V(k, j) is v[j*n+k]) so that every inner loop runs along a
 * row: on entry v holds A in its upper triangle; on return d is the
 * diagonal of T = Qᵀ A Q, e[i] (i ≥ 1) couples i−1 and i, and row i of v
 * is column i of Q. */
static void FN(tred)(int n, double *restrict v, double *restrict d, double *restrict e) {
	for (int j = 0; j < n; j++)
		d[j] = v[j * n + n - 1];
	for (int i = n - 1; i > 0; i--) {
		double scale = 0, h = 0;
		for (int k = 0; k < i; k++)
			scale += fabs(d[k]);
		if (scale == 0) {
			e[i] = d[i - 1];
			for (int j = 0; j < i; j++) {
				d[j] = v[j * n + i - 1];
				v[j * n + i] = 0;
				v[i * n + j] = 0;
			}
		} else {
			for (int k = 0; k < i; k++) {
				d[k] /= scale;
				h += d[k] * d[k];
			}
			double f = d[i - 1], g = sqrt(h);
			if (f > 0)
				g = -g;
			e[i] = scale * g;
			h -= f * g;
			d[i - 1] = f - g;
			for (int j = 0; j < i; j++)
				e[j] = 0;
			for (int j = 0; j < i; j++) {
				double *row = v + j * n;
				f = d[j];
				v[i * n + j] = f;
				e[j] += row[j] * f + FN(dotaxpy)(i - j - 1, row + j + 1, d + j + 1, f, e + j + 1);
			}
			f = 0;
			for (int j = 0; j < i; j++) {
				e[j] /= h;
				f += e[j] * d[j];
			}
			double hh = f / (h + h);
			FN(axpy)(i, -hh, d, e);
			for (int j = 0; j < i; j++) {
				double *row = v + j * n;
				FN(syr2)(i - j, row + j, d[j], e + j, e[j], d + j);
				d[j] = row[i - 1];
				row[i] = 0;
			}
		}
		d[i] = h;
	}
	/* Accumulate the transformations. */
	for (int i = 0; i < n - 1; i++) {
		double *ri1 = v + (i + 1) * n;
		v[i * n + n - 1] = v[i * n + i];
		v[i * n + i] = 1;
		double h = d[i + 1];
		if (h != 0) {
			for (int k = 0; k <= i; k++)
				d[k] = ri1[k] / h;
			for (int j = 0; j <= i; j++) {
				double *rj = v + j * n;
				FN(axpy)(i + 1, -FN(dot)(i + 1, ri1, rj), d, rj);
			}
		}
		memset(ri1, 0, (size_t)(i + 1) * sizeof(double));
	}
	for (int j = 0; j < n; j++) {
		d[j] = v[j * n + n - 1];
		v[j * n + n - 1] = 0;
	}
	v[n * n - 1] = 1;
}

/* laev2 is LAPACK's dlaev2: the eigenvalues rt1 (the larger in absolute
 * value) and rt2 of [[a, b], [b, c]], and the rotation (cs1, sn1) whose
 * first row [cs1, sn1] is rt1's unit eigenvector. */
static inline void FN(laev2)(double a, double b, double c, double *rt1, double *rt2, double *cs1, double *sn1) {
	double sm = a + c, df = a - c, adf = fabs(df), tb = b + b, ab = fabs(tb);
	double acmx = a, acmn = c, rt;
	if (fabs(a) <= fabs(c)) {
		acmx = c;
		acmn = a;
	}
	if (adf > ab)
		rt = adf * sqrt(1 + (ab / adf) * (ab / adf));
	else if (adf < ab)
		rt = ab * sqrt(1 + (adf / ab) * (adf / ab));
	else
		rt = ab * sqrt(2.0);
	int sgn1, sgn2;
	if (sm < 0) {
		*rt1 = 0.5 * (sm - rt);
		sgn1 = -1;
		*rt2 = (acmx / *rt1) * acmn - (b / *rt1) * b;
	} else if (sm > 0) {
		*rt1 = 0.5 * (sm + rt);
		sgn1 = 1;
		*rt2 = (acmx / *rt1) * acmn - (b / *rt1) * b;
	} else {
		*rt1 = 0.5 * rt;
		*rt2 = -0.5 * rt;
		sgn1 = 1;
	}
	double cs;
	if (df >= 0) {
		cs = df + rt;
		sgn2 = 1;
	} else {
		cs = df - rt;
		sgn2 = -1;
	}
	if (fabs(cs) > ab) {
		double ct = -tb / cs;
		*sn1 = 1 / sqrt(1 + ct * ct);
		*cs1 = ct * *sn1;
	} else if (ab == 0) {
		*cs1 = 1;
		*sn1 = 0;
	} else {
		double tn = -cs / tb;
		*cs1 = 1 / sqrt(1 + tn * tn);
		*sn1 = tn * *cs1;
	}
	if (sgn1 == sgn2) {
		double tn = *cs1;
		*cs1 = -*sn1;
		*sn1 = tn;
	}
}

/* lartg is LAPACK's dlartg (3.10): the rotation with c·f + s·g = r and
 * −s·f + c·g = 0, c ≥ 0 and r of the sign of f, scaled where f² or g²
 * would over- or underflow. */
static inline void FN(lartg)(double f, double g, double *c, double *s, double *r) {
	const double rtmin = 0x1p-511, rtmax = 0x1p511;
	double f1 = fabs(f), g1 = fabs(g);
	if (g == 0) {
		*c = 1;
		*s = 0;
		*r = f;
	} else if (f == 0) {
		*c = 0;
		*s = copysign(1, g);
		*r = g1;
	} else if (f1 > rtmin && f1 < rtmax && g1 > rtmin && g1 < rtmax) {
		double d = sqrt(f * f + g * g);
		*c = f1 / d;
		*r = copysign(d, f);
		*s = g / *r;
	} else {
		double u = fmin(DBL_MAX, fmax(DBL_MIN, fmax(f1, g1)));
		double fs = f / u, gs = g / u, d = sqrt(fs * fs + gs * gs);
		*c = fabs(fs) / d;
		*r = copysign(d, f);
		*s = gs / *r;
		*r *= u;
	}
}

/* steqr is LAPACK's dsteqr (compz = 'V') on the diagonal d and the
 * couplings e (e[i] couples i and i+1), rotating the rows of v: implicit
 * QL or QR with Wilkinson's shift, towards the end of each unreduced block
 * with the smaller diagonal entry, deflating where |e_i| ≤
 * ε·sqrt(|d_i||d_{i+1}|), each block scaled into a safe range by a power
 * of two, and 2×2 blocks solved directly. It returns 0, or the number of
 * couplings left when n·30 iterations did not converge. */
static int FN(steqr)(int n, double *restrict d, double *restrict e, double *restrict v) {
	const double eps = EPS / 2, eps2 = eps * eps, safmin = DBL_MIN;
	const double ssfmax = sqrt(1 / safmin) / 3, ssfmin = sqrt(safmin) / eps2;
	const int nmaxit = n * QL_MAXIT;
	int jtot = 0;
	for (int l1 = 0; l1 < n;) {
		if (l1 > 0)
			e[l1 - 1] = 0;
		int m = l1;
		for (; m < n - 1; m++) {
			double tst = fabs(e[m]);
			if (tst == 0)
				break;
			if (tst <= sqrt(fabs(d[m])) * sqrt(fabs(d[m + 1])) * eps) {
				e[m] = 0;
				break;
			}
		}
		int l = l1, lsv = l, lend = m, lendsv = lend;
		l1 = m + 1;
		if (lend == l)
			continue;
		/* Scale the block by a power of two if its largest entry is
		 * outside [ssfmin, ssfmax]. */
		double anorm = 0;
		for (int i = l; i <= lend; i++)
			anorm = fmax(anorm, fabs(d[i]));
		for (int i = l; i < lend; i++)
			anorm = fmax(anorm, fabs(e[i]));
		if (anorm == 0)
			continue;
		int ex = 0;
		if (anorm > ssfmax || anorm < ssfmin) {
			frexp(anorm, &ex);
			for (int i = l; i <= lend; i++)
				d[i] = ldexp(d[i], -ex);
			for (int i = l; i < lend; i++)
				e[i] = ldexp(e[i], -ex);
		}
		if (fabs(d[lend]) < fabs(d[l])) {
			lend = lsv;
			l = lendsv;
		}
		if (lend > l) {
			/* QL: eigenvalues converge at the top, l. */
			for (;;) {
				for (m = l; m < lend; m++)
					if (e[m] * e[m] <= (eps2 * fabs(d[m])) * fabs(d[m + 1]) + safmin)
						break;
				if (m < lend)
					e[m] = 0;
				double p = d[l];
				if (m == l) {
					l++;
					if (l <= lend)
						continue;
					break;
				}
				if (m == l + 1) {
					double rt1, rt2, c, s;
					FN(laev2)(d[l], e[l], d[l + 1], &rt1, &rt2, &c, &s);
					FN(rot)(n, v + l * n, v + (l + 1) * n, c, -s);
					d[l] = rt1;
					d[l + 1] = rt2;
					e[l] = 0;
					l += 2;
					if (l <= lend)
						continue;
					break;
				}
				if (jtot == nmaxit)
					break;
				jtot++;
				double g = (d[l + 1] - p) / (2 * e[l]);
				double r = hypot2(g, 1);
				g = d[m] - p + (e[l] / (g + copysign(r, g)));
				double s = 1, c = 1;
				p = 0;
				for (int i = m - 1; i >= l; i--) {
					double f = s * e[i], b = c * e[i];
					FN(lartg)(g, f, &c, &s, &r);
					if (i != m - 1)
						e[i + 1] = r;
					g = d[i + 1] - p;
					r = (d[i] - g) * s + 2 * c * b;
					p = s * r;
					d[i + 1] = g + p;
					g = c * r - b;
					FN(rot)(n, v + i * n, v + (i + 1) * n, c, s);
				}
				d[l] -= p;
				e[l] = g;
			}
		} else {
			/* QR: eigenvalues converge at the bottom, l. */
			for (;;) {
				for (m = l; m > lend; m--)
					if (e[m - 1] * e[m - 1] <= (eps2 * fabs(d[m])) * fabs(d[m - 1]) + safmin)
						break;
				if (m > lend)
					e[m - 1] = 0;
				double p = d[l];
				if (m == l) {
					l--;
					if (l >= lend)
						continue;
					break;
				}
				if (m == l - 1) {
					double rt1, rt2, c, s;
					FN(laev2)(d[l - 1], e[l - 1], d[l], &rt1, &rt2, &c, &s);
					FN(rot)(n, v + (l - 1) * n, v + l * n, c, -s);
					d[l - 1] = rt1;
					d[l] = rt2;
					e[l - 1] = 0;
					l -= 2;
					if (l >= lend)
						continue;
					break;
				}
				if (jtot == nmaxit)
					break;
				jtot++;
				double g = (d[l - 1] - p) / (2 * e[l - 1]);
				double r = hypot2(g, 1);
				g = d[m] - p + (e[l - 1] / (g + copysign(r, g)));
				double s = 1, c = 1;
				p = 0;
				for (int i = m; i < l; i++) {
					double f = s * e[i], b = c * e[i];
					FN(lartg)(g, f, &c, &s, &r);
					if (i != m)
						e[i - 1] = r;
					g = d[i] - p;
					r = (d[i + 1] - g) * s + 2 * c * b;
					p = s * r;
					d[i] = g + p;
					g = c * r - b;
					FN(rot)(n, v + i * n, v + (i + 1) * n, c, -s);
				}
				d[l] -= p;
				e[l - 1] = g;
			}
		}
		if (ex != 0) {
			for (int i = lsv; i <= lendsv; i++)
				d[i] = ldexp(d[i], ex);
			for (int i = lsv; i < lendsv; i++)
				e[i] = ldexp(e[i], ex);
		}
		if (jtot == nmaxit) {
			int info = 0;
			for (int i = 0; i < n - 1; i++)
				if (e[i] != 0)
					info++;
			return info > 0 ? info : n + 1;
		}
	}
	return 0;
}

/* syevql: see lapackx_syevql in syevql.c. */
static int FN(syevql)(int n, double *restrict a, double *restrict w, double *restrict e, int lower) {
	double amax = 0;
	for (int i = 0; i < n; i++) {
		for (int j = i; j < n; j++) {
			/* The upper triangle of the result is tred's input. */
			double x = lower ? a[j * n + i] : a[i * n + j];
			a[i * n + j] = x;
			amax = fmax(amax, fabs(x));
		}
	}
	if (n == 0)
		return 0;
	int ex = 0;
	if (amax != 0 && (amax < 0x1p-400 || amax > 0x1p400)) {
		/* Scale by a power of two (exactly) so that squares and products of
		 * entries neither overflow nor underflow. */
		frexp(amax, &ex);
		for (int i = 0; i < n; i++)
			for (int j = i; j < n; j++)
				a[i * n + j] = ldexp(a[i * n + j], -ex);
	}
	FN(tred)(n, a, w, e);
	for (int i = 1; i < n; i++)
		e[i - 1] = e[i];
	e[n - 1] = 0;
	for (int i = 0; i < n; i++)
		if (!isfinite(w[i]) || !isfinite(e[i]))
			return n + 1;
	int info = FN(steqr)(n, w, e, a);
	if (info != 0)
		return info;
	for (int i = 0; i < n; i++)
		w[i] = ldexp(w[i], ex);
	/* Sort ascending, moving the eigenvectors with their eigenvalues. */
	for (int i = 0; i < n - 1; i++) {
		int m = i;
		for (int k = i + 1; k < n; k++)
			if (w[k] < w[m])
				m = k;
		if (m != i) {
			double t = w[i];
			w[i] = w[m];
			w[m] = t;
			double *vi = a + i * n, *vm = a + m * n;
			for (int k = 0; k < n; k++) {
				t = vi[k];
				vi[k] = vm[k];
				vm[k] = t;
			}
		}
	}
	return 0;
}

/* resid computes r[i*n+j] = sum_k a[j*n+k] v[i*n+k] - w[i] v[i*n+j] for
 * i < m, j < n, each as if in twice the working precision and rounded
 * once: Ogita, Rump and Oishi's Dot2 (the products' errors by fused
 * multiply-add, the sums' by TwoSum), in four lanes and two interleaved
 * chains with AVX2. lapackx's eigenpair refinement (refine.go) needs these
 * residuals below the u·|A||v| rounding of a plain product. Contraction
 * into fused multiply-adds, which GCC does by default, would break the
 * error-free transformations and is off here. */
__attribute__((optimize("fp-contract=off"))) /* TwoSum needs every sum rounded on its own */
static void FN(resid)(int n, int m, const double *restrict a, const double *restrict v, const double *restrict w,
		double *restrict r) {
	for (int i = 0; i < m; i++) {
		const double *vi = v + (size_t)i * n;
		for (int j = 0; j < n; j++) {
			const double *aj = a + (size_t)j * n;
			double p = -w[i] * vi[j];
			double s = p, c = fma(-w[i], vi[j], -p);
			int k = 0;
#ifdef RHGD_AVX2
			__m256d s0 = _mm256_setzero_pd(), c0 = _mm256_setzero_pd();
			__m256d s1 = _mm256_setzero_pd(), c1 = _mm256_setzero_pd();
			for (; k + 8 <= n; k += 8) {
				__m256d x0 = _mm256_loadu_pd(aj + k), y0 = _mm256_loadu_pd(vi + k);
				__m256d x1 = _mm256_loadu_pd(aj + k + 4), y1 = _mm256_loadu_pd(vi + k + 4);
				__m256d p0 = _mm256_mul_pd(x0, y0), p1 = _mm256_mul_pd(x1, y1);
				c0 = _mm256_add_pd(c0, _mm256_fmsub_pd(x0, y0, p0));
				c1 = _mm256_add_pd(c1, _mm256_fmsub_pd(x1, y1, p1));
				__m256d t0 = _mm256_add_pd(s0, p0), t1 = _mm256_add_pd(s1, p1);
				__m256d z0 = _mm256_sub_pd(t0, s0), z1 = _mm256_sub_pd(t1, s1);
				c0 = _mm256_add_pd(c0, _mm256_add_pd(_mm256_sub_pd(s0, _mm256_sub_pd(t0, z0)), _mm256_sub_pd(p0, z0)));
				c1 = _mm256_add_pd(c1, _mm256_add_pd(_mm256_sub_pd(s1, _mm256_sub_pd(t1, z1)), _mm256_sub_pd(p1, z1)));
				s0 = t0;
				s1 = t1;
			}
			double sl[8], cl[8];
			_mm256_storeu_pd(sl, s0);
			_mm256_storeu_pd(sl + 4, s1);
			_mm256_storeu_pd(cl, c0);
			_mm256_storeu_pd(cl + 4, c1);
			for (int l = 0; l < 8; l++) {
				double t = s + sl[l], z = t - s;
				c += cl[l] + ((s - (t - z)) + (sl[l] - z));
				s = t;
			}
#endif
			for (; k < n; k++) {
				double q = aj[k] * vi[k];
				c += fma(aj[k], vi[k], -q);
				double t = s + q, z = t - s;
				c += (s - (t - z)) + (q - z);
				s = t;
			}
			r[(size_t)i * n + j] = s + c;
		}
	}
}
