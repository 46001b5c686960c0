/*
 * comm.c - collective times from link bandwidth and a fixed latency.
 *
 * Ring algorithms (NCCL's docs, "Performance reported by NCCL tests"): an
 * all-reduce moves 2(n-1)/n of the buffer over each link, all-gather and
 * reduce-scatter (n-1)/n of the full buffer, send/recv the message once:
 *   t = latency + steps + traffic / bw.
 * bw is the per-direction link bandwidth (NVLink total / 2, or PCIe) times
 * an efficiency.  Checked with `make bench-comm` against NCCL measurements
 * (vidur, PipeWeave): A100 SXM all-reduce busbw 199 GB/s (2 GPUs) to 228
 * GB/s (8), 0.66-0.76 of 300 GB/s; H800 212 of 200 (NVLS); H20 445 of 450;
 * send/recv 231 of 300 on A100; PCIe 4.0/5.0 all-reduce 0.45-0.58 of the
 * link.  Small messages: 5-10 us for 2 ranks, 16-80 us for 8.
 */
#include "analyzer/comm.h"

#define NVLINK_EFF 0.75
#define PCIE_EFF 0.5

void comm_link_init(const struct gpu_spec *g, struct comm_link *l)
{
	if (g && g->nvlink_gbps > 0) {
		l->nvlink = 1;
		l->bw_gbps = g->nvlink_gbps / 2.0 * NVLINK_EFF;
		l->latency_us = 8.0;
		l->step_us = 4.0;
	} else {
		double pcie = g ? gpu_host_link_gbps(g) : 0;
		if (pcie <= 0)
			pcie = 16.0; /* PCIe 3.0 x16 */
		l->nvlink = 0;
		l->bw_gbps = pcie * PCIE_EFF;
		l->latency_us = 10.0;
		l->step_us = 6.0;
	}
}

double comm_time_ns(enum model_comm op, double bytes, uint32_t ranks, const struct comm_link *l)
{
	if (ranks <= 1 || bytes <= 0 || !l || l->bw_gbps <= 0)
		return 0;
	double n = ranks, traffic;
	switch (op) {
	case MODEL_COMM_ALL_REDUCE:
		traffic = 2.0 * (n - 1) / n * bytes;
		break;
	case MODEL_COMM_ALL_GATHER:
	case MODEL_COMM_REDUCE_SCATTER:
		traffic = (n - 1) / n * bytes;
		break;
	case MODEL_COMM_SEND_RECV:
		traffic = bytes;
		n = 2;
		break;
	default:
		return 0;
	}
	double lat_us = l->latency_us + l->step_us * (n - 2);
	return lat_us * 1e3 + traffic / l->bw_gbps; /* bytes / (GB/s) = ns */
}

const char *comm_name(enum model_comm op)
{
	static const char *const names[] = { "none", "all-reduce", "all-gather", "reduce-scatter", "send/recv" };
	return (unsigned)op <= MODEL_COMM_SEND_RECV ? names[op] : "?";
}
