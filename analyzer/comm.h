/*
 * comm.h - times of the NCCL collectives --dp/--tp/--pp add, from the
 * interconnect figures of the GPU database (NVLink, else PCIe).
 */
#ifndef SURFER_COMM_H
#define SURFER_COMM_H

#include <stdint.h>
#include "analyzer/model.h"
#include "gpu_specs/gpu.h"

/* The link collectives run over, as comm.c derives it from a GPU. */
struct comm_link {
	double bw_gbps;        /* achievable per-direction bandwidth, GB/s   */
	double latency_us;     /* fixed cost of one collective with 2 ranks  */
	double step_us;        /* added per extra rank (ring steps)          */
	double p2p_us;         /* fixed cost of one send/recv                */
	int nvlink;            /* 1 NVLink, 0 PCIe                           */
};

/* Fills l for collectives between GPUs of type g inside one node. */
void comm_link_init(const struct gpu_spec *g, struct comm_link *l);

/* Time in ns of collective op over bytes (the buffer each rank holds:
 * the reduced buffer for all-reduce, the full output for all-gather and
 * reduce-scatter, the message for send/recv) among ranks GPUs. */
double comm_time_ns(enum model_comm op, double bytes, uint32_t ranks, const struct comm_link *l);

const char *comm_name(enum model_comm op);

#endif
