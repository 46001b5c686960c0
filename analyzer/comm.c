/*
 * comm.c - collective times from link bandwidth and a fixed latency.
 *
 * Ring algorithms (NCCL's docs, "Performance reported by NCCL tests"): an
 * all-reduce moves 2(n-1)/n of the buffer over each link, all-gather and
 * reduce-scatter (n-1)/n of the full buffer, send/recv the message once:
 *   t = latency + steps + traffic / bw.
 * bw is the per-direction link bandwidth (NVLink total / 2, or PCIe) times
 * an efficiency.  The NVLink figures were fitted (grid search, mean
 * relative error) to the node-local NCCL measurements of 1 MB and more in
 * vidur (A100 DGX) and PipeWeave (A100, H800, H20): efficiency 0.8, 30 us
 * per all-reduce (flat in the rank count), 8 us per send/recv; `make
 * bench-comm` reports 13-27% mean error per set for all-reduce and 3-10%
 * for send/recv (busbw measured: A100 199-228 GB/s of 300, H800 212 of
 * 200, H20 445 of 450).  PCIe 4.0/5.0 all-reduce reaches 0.45-0.58 of the
 * link (RTX 6000 Ada, RTX PRO 6000 data).
 */
#include "analyzer/comm.h"

#define NVLINK_EFF 0.8
#define PCIE_EFF 0.5
#define PCIE_P2P_EFF 0.75

void comm_link_init(const struct gpu_spec *g, struct comm_link *l, struct comm_link *pcie)
{
	double host = g ? gpu_host_link_gbps(g) : 0;
	if (host <= 0)
		host = 16.0; /* PCIe 3.0 x16 */
	*pcie = (struct comm_link){ .bw_gbps = host * PCIE_EFF, .latency_us = 30.0,
				    .step_us = 5.0, .p2p_us = 10.0 };
	if (g && g->nvlink_gbps > 0) {
		*l = (struct comm_link){ .nvlink = 1, .bw_gbps = g->nvlink_gbps / 2.0 * NVLINK_EFF,
					 .latency_us = 30.0, .p2p_us = 8.0,
					 .peers = g->nvlink_peers, .wide = pcie };
		/* Bridged PCIe cards: a ring of more than two crosses PCIe
		 * between pairs.  Every link of a ring carries the same bytes,
		 * so the PCIe hops set the pace, at the efficiency of PCIe
		 * peer-to-peer through a switch (vidur's A100 pairs, 4 ranks:
		 * busbw 23-24 GB/s of 31.5). */
		pcie->bw_gbps = host * PCIE_P2P_EFF;
	} else {
		*l = *pcie;
	}
}

double comm_time_ns(enum model_comm op, double bytes, uint32_t ranks, const struct comm_link *l)
{
	if (ranks <= 1 || bytes <= 0 || !l || l->bw_gbps <= 0)
		return 0;
	if (l->peers && ranks > l->peers && l->wide)
		l = l->wide;
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
	double lat_us = op == MODEL_COMM_SEND_RECV ? l->p2p_us : l->latency_us + l->step_us * (n - 2);
	return lat_us * 1e3 + traffic / l->bw_gbps; /* bytes / (GB/s) = ns */
}

const char *comm_name(enum model_comm op)
{
	static const char *const names[] = { "none", "all-reduce", "all-gather", "reduce-scatter", "send/recv" };
	return (unsigned)op <= MODEL_COMM_SEND_RECV ? names[op] : "?";
}
