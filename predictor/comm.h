/*
 * comm.h - times of the NCCL collectives (--dp/--tp/--pp of a model run,
 * the collectives of a trace built from one), from the interconnect figures
 * of the GPU database (NVLink, else PCIe).  A predictor like the others: it
 * knows GPUs and byte counts, nothing of models or traces.
 */
#ifndef SURFER_COMM_H
#define SURFER_COMM_H

#include <stdint.h>
#include "gpu_specs/gpu.h"

/* The collective a communication kernel stands for. */
enum comm_op {
	COMM_NONE = 0, COMM_ALL_REDUCE, COMM_ALL_GATHER,
	COMM_REDUCE_SCATTER, COMM_SEND_RECV
};

/* The link collectives run over, as comm.c derives it from a GPU. */
struct comm_link {
	double bw_gbps;        /* achievable per-direction bandwidth, GB/s   */
	double latency_us;     /* fixed cost of one collective with 2 ranks  */
	double step_us;        /* added per extra rank (ring steps)          */
	double p2p_us;         /* fixed cost of one send/recv                */
	int nvlink;            /* 1 NVLink, 0 PCIe                           */
	/* Groups of more than `peers` ranks (0: no limit) leave the NVLink
	 * domain: their ring crosses PCIe, and *wide describes that link. */
	uint32_t peers;
	const struct comm_link *wide;
	/* All-reduces of NVLS_MIN_RANKS or more ranks inside the domain run
	 * NVLink SHARP at this per-direction rate, GB/s (0: never). */
	double nvls_gbps;
	double p2p_gbps;       /* send/recv rate, GB/s (0: bw_gbps)          */
};
#define NVLS_MIN_RANKS 8

/* Fills l for collectives between GPUs of type g inside one node; pcie
 * receives the PCIe link that groups wider than g's NVLink domain use
 * (l->wide points to it, so it must live as long as l). */
void comm_link_init(const struct gpu_spec *g, struct comm_link *l, struct comm_link *pcie);

/* Time in ns of collective op over bytes (the buffer each rank holds:
 * the reduced buffer for all-reduce, the full output for all-gather and
 * reduce-scatter, the message for send/recv) among ranks GPUs. */
double comm_time_ns(enum comm_op op, double bytes, uint32_t ranks, const struct comm_link *l);

/* The custom all-reduce of serving engines (vLLM's custom_all_reduce.cuh,
 * SGLang's, for tensor parallelism inside one NVLink node): time in ns for
 * bytes among ranks GPUs, or 0 where the engine hands the call to NCCL
 * (no NVLink between all ranks, ranks not 2/4/6/8, bytes above the cap). */
double comm_custom_all_reduce_ns(double bytes, uint32_t ranks, const struct comm_link *l);

/* Whether a kernel of this name is an engine's custom all-reduce
 * (cross_device_reduce_1stage / _2stage). */
int comm_is_custom_all_reduce(const char *kernel_name);

const char *comm_name(enum comm_op op);

#endif
