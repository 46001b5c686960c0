/*
 * mlp.h - a small fully connected network in plain C: ReLU hidden layers,
 * linear outputs, inputs standardised by stored means and deviations.
 * Inference, backpropagation, Adam, a fixed-seed initialisation, and a
 * little-endian float32 blob format for saving and loading weights.
 *
 * The tile model (tile.c) uses it to predict utilisation; surfer-train
 * trains it.  Nothing here knows about GPUs.
 */
#ifndef SURFER_MLP_H
#define SURFER_MLP_H

#include <stddef.h>
#include <stdint.h>

#define MLP_MAX_LAYERS 8      /* weight layers                          */
#define MLP_MAX_WIDTH 256     /* widest layer, inputs included          */

struct mlp;

/* Creates a network with nlayers weight layers: sizes[0] inputs, then the
 * width of each layer, sizes[nlayers] outputs.  Weights start He-uniform from
 * a generator seeded with seed (the same seed gives the same network), biases
 * 0, input means 0 and deviations 1.  NULL on bad sizes or no memory.  The
 * caller frees it with mlp_free(). */
struct mlp *mlp_new(const unsigned *sizes, unsigned nlayers, uint64_t seed);
void mlp_free(struct mlp *m);

unsigned mlp_inputs(const struct mlp *m);
unsigned mlp_outputs(const struct mlp *m);

/* Sets the per-input standardisation: x' = (x - mean) / sd (sd <= 0 is
 * taken as 1).  Arrays of mlp_inputs() values, copied. */
void mlp_set_norm(struct mlp *m, const double *mean, const double *sd);

/* Computes the outputs y for the inputs x.  Reentrant: m is not written. */
void mlp_forward(const struct mlp *m, const double *x, double *y);

/* Training.  mlp_train_forward() is mlp_forward() that keeps the
 * activations in m; mlp_backward() then adds to m's gradient the gradient of
 * the loss whose derivative with respect to the outputs is dy.  After a
 * batch, mlp_adam_step() applies Adam (Kingma and Ba 2015) with learning
 * rate lr to the gradient averaged over `count` samples and clears it. */
void mlp_train_forward(struct mlp *m, const double *x, double *y);
void mlp_backward(struct mlp *m, const double *dy);
void mlp_adam_step(struct mlp *m, double lr, unsigned count);

/* Serialises m into a malloc'd blob (*out, *len; caller frees).  0 or -1. */
int mlp_save(const struct mlp *m, unsigned char **out, size_t *len);

/* Reads a network from a blob written by mlp_save().  On success returns 0,
 * sets *out (caller frees with mlp_free) and *used to the bytes consumed;
 * -1 on a truncated or malformed blob. */
int mlp_load(const unsigned char *blob, size_t len, struct mlp **out, size_t *used);

#endif
