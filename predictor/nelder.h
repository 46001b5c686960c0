/*
 * nelder.h - Nelder-Mead minimisation, for the few-constant models fitted
 * on measurements (tcgemm.c's tensor-core GEMM model, the tile model's
 * GEMM curve in surfer-train).
 */
#ifndef SURFER_NELDER_H
#define SURFER_NELDER_H

/* The most parameters nelder_mead() takes. */
#define NELDER_MAXDIM 16

/* The function minimised: x has d entries; INFINITY marks a point outside
 * the feasible region. */
typedef double (*nelder_fn)(const double *x, void *ctx);

/* Nelder & Mead (1965) with the standard coefficients (reflection 1,
 * expansion 2, contraction and shrink 0.5), from x with initial steps of
 * `step` along each axis, for at most `iters` iterations or until the
 * simplex's values agree to 1e-12.  x receives the best point; returns
 * its value.  d is 1 to NELDER_MAXDIM. */
double nelder_mead(nelder_fn f, void *ctx, double *x, int d, double step, int iters);

/* nelder_mead() with steps of `step`, then restarted from the best point
 * with steps of `restep` (a simplex can collapse and stall) until a
 * restart lowers the value by no more than 1e-10, at most `restarts`
 * times.  x receives the best point; returns its value. */
double nelder_mead_restarts(nelder_fn f, void *ctx, double *x, int d, double step,
			    double restep, int iters, int restarts);

#endif
