/*
 * nelder.c - Nelder-Mead minimisation (nelder.h).
 */
#include "predictor/nelder.h"

#include <math.h>
#include <string.h>

double nelder_mead(nelder_fn f, void *ctx, double *x, int d, double step, int iters)
{
	double sx[NELDER_MAXDIM + 1][NELDER_MAXDIM], fx[NELDER_MAXDIM + 1];
	double c[NELDER_MAXDIM], xr[NELDER_MAXDIM], xe[NELDER_MAXDIM];
	size_t sz = sizeof(double) * (size_t)d;

	for (int i = 0; i <= d; i++) {
		memcpy(sx[i], x, sz);
		if (i > 0)
			sx[i][i - 1] += step;
		fx[i] = f(sx[i], ctx);
	}
	for (int it = 0; it < iters; it++) {
		int lo = 0, hi = 0, nh;
		for (int i = 1; i <= d; i++) {
			if (fx[i] < fx[lo])
				lo = i;
			if (fx[i] > fx[hi])
				hi = i;
		}
		nh = lo;
		for (int i = 0; i <= d; i++)
			if (i != hi && fx[i] > fx[nh])
				nh = i;
		if (fabs(fx[hi] - fx[lo]) <= 1e-12 * (fabs(fx[lo]) + 1e-12))
			break;
		for (int j = 0; j < d; j++) {
			c[j] = 0;
			for (int i = 0; i <= d; i++)
				if (i != hi)
					c[j] += sx[i][j] / d;
		}
		for (int j = 0; j < d; j++)
			xr[j] = c[j] + (c[j] - sx[hi][j]);
		double fr = f(xr, ctx);
		if (fr < fx[lo]) {
			for (int j = 0; j < d; j++)
				xe[j] = c[j] + 2 * (c[j] - sx[hi][j]);
			double fe = f(xe, ctx);
			if (fe < fr) {
				memcpy(sx[hi], xe, sz);
				fx[hi] = fe;
			} else {
				memcpy(sx[hi], xr, sz);
				fx[hi] = fr;
			}
		} else if (fr < fx[nh]) {
			memcpy(sx[hi], xr, sz);
			fx[hi] = fr;
		} else {
			int outside = fr < fx[hi];
			for (int j = 0; j < d; j++)
				xe[j] = outside ? c[j] + 0.5 * (xr[j] - c[j])
						: c[j] + 0.5 * (sx[hi][j] - c[j]);
			double fc = f(xe, ctx);
			if (fc < (outside ? fr : fx[hi])) {
				memcpy(sx[hi], xe, sz);
				fx[hi] = fc;
			} else {
				for (int i = 0; i <= d; i++) {
					if (i == lo)
						continue;
					for (int j = 0; j < d; j++)
						sx[i][j] = sx[lo][j] + 0.5 * (sx[i][j] - sx[lo][j]);
					fx[i] = f(sx[i], ctx);
				}
			}
		}
	}
	int lo = 0;
	for (int i = 1; i <= d; i++)
		if (fx[i] < fx[lo])
			lo = i;
	memcpy(x, sx[lo], sz);
	return fx[lo];
}

double nelder_mead_restarts(nelder_fn f, void *ctx, double *x, int d, double step,
			    double restep, int iters, int restarts)
{
	double loss = nelder_mead(f, ctx, x, d, step, iters);
	for (int r = 0; r < restarts; r++) {
		double l2 = nelder_mead(f, ctx, x, d, restep, iters);
		int done = l2 > loss - 1e-10;
		loss = l2;
		if (done)
			break;
	}
	return loss;
}
