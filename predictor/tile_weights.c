/*
 * tile_weights.c - placeholder: no trained weights compiled in yet.
 * Regenerate with surfer-train (see README).
 */
#include "predictor/tile.h"

const unsigned char tile_weights_blob[] = {0};
const size_t tile_weights_blob_len = 0;
