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

/* ql is EISPACK's tql2, the implicit QL iteration with Wilkinson's shift,
 * on the diagonal d and the couplings e (e[i] couples i and i+1, e[n−1] =
 * 0), rotating the rows of v. It returns 0, or l+1 if eigenvalue l did not
 * converge in QL_MAXITER iterations. */
static int FN(ql)(int n, double *restrict d, double *restrict e, double *restrict v) {
	double f = 0, tst1 = 0;
	for (int l = 0; l < n; l++) {
		tst1 = fmax(tst1, fabs(d[l]) + fabs(e[l]));
		int m = l;
		while (m < n - 1 && fabs(e[m]) > EPS * tst1)
			m++;
		if (m > l) {
			for (int iter = 0;; iter++) {
				if (iter == QL_MAXITER)
					return l + 1;
				double g = d[l];
				double p = (d[l + 1] - g) / (2 * e[l]);
				double r = hypot2(p, 1);
				if (p < 0)
					r = -r;
				d[l] = e[l] / (p + r);
				d[l + 1] = e[l] * (p + r);
				double dl1 = d[l + 1], h = g - d[l];
				for (int i = l + 2; i < n; i++)
					d[i] -= h;
				f += h;
				p = d[m];
				double c = 1, c2 = 1, c3 = 1, el1 = e[l + 1], s = 0, s2 = 0;
				for (int i = m - 1; i >= l; i--) {
					c3 = c2;
					c2 = c;
					s2 = s;
					g = c * e[i];
					h = c * p;
					r = hypot2(p, e[i]);
					e[i + 1] = s * r;
					double ri = 1 / r;
					s = e[i] * ri;
					c = p * ri;
					p = c * d[i] - s * g;
					d[i + 1] = h + s * (c * g + s * d[i]);
					FN(rot)(n, v + i * n, v + (i + 1) * n, c, s);
				}
				p = -s * s2 * c3 * el1 * (e[l] / dl1);
				e[l] = s * p;
				d[l] = c * p;
				if (fabs(e[l]) <= EPS * tst1)
					break;
			}
		}
		d[l] += f;
		e[l] = 0;
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
	int info = FN(ql)(n, w, e, a);
	if (info != 0)
		return info;
	for (int i = 0; i < n; i++) {
		if (isnan(w[i]))
			return n + 1;
		w[i] = ldexp(w[i], ex);
	}
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
