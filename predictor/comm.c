/*
 * comm.c - collective times from link bandwidth and a fixed latency.
 *
 * Ring algorithms (NCCL's docs, "Performance reported by NCCL tests"): an
 * all-reduce moves 2(n-1)/n of the buffer over each link, all-gather and
 * reduce-scatter (n-1)/n of the full buffer, send/recv the message once:
 *   t = latency + steps + traffic / bw.
 * bw is the per-direction link bandwidth (NVLink total / 2, or PCIe) times
 * an efficiency.  On Hopper boards whose eight GPUs share NVSwitches,
 * NCCL's all-reduce of all eight is NVLink SHARP (NVLS): the switches
 * reduce, each GPU sends its buffer once and receives the result once, so
 * the traffic is the buffer, not 2(n-1)/n of it.  The measured bus
 * bandwidth says so: 212 GB/s on H800 and 467 on H20 at 1 GB, above the
 * 200 and 450 GB/s a ring could reach per direction; their four-rank
 * all-reduce (H20) stays a ring.
 *
 * Constants, fitted (grid search, mean relative error) to the node-local
 * NCCL measurements of 1 MB and more in vidur (A100 DGX) and PipeWeave
 * (A100, H800, H20): NVLink efficiency 0.75 for rings, 0.8 for send/recv,
 * NVLS 0.6 of the per-direction bandwidth, 50 us per all-reduce (flat in
 * the rank count), 8 us per send/recv.  Each system predicted by the
 * constants fitted on the other three: A100 DGX 15.8%, PipeWeave A100
 * 16.0%, H20 14.6%, H800 3.2% mean error (ring only, 0.8 and 30 us as
 * before: 26.9, 19.6, 9.3, 13.5%).
 * PCIe 4.0/5.0 all-reduce reaches 0.45-0.58 of the link (RTX 6000 Ada,
 * RTX PRO 6000 data).
 */
#include "predictor/comm.h"

#include <string.h>

#define NVLINK_EFF 0.75
#define NVLS_EFF 0.6
#define NVLINK_P2P_EFF 0.8
#define NVLINK_LATENCY_US 50.0
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
					 .latency_us = NVLINK_LATENCY_US, .p2p_us = 8.0,
					 .peers = g->nvlink_peers, .wide = pcie };
		l->p2p_gbps = g->nvlink_gbps / 2.0 * NVLINK_P2P_EFF;
		if (!gpu_cc_is_amd(g->cc) && g->cc >= 90 && g->nvlink_peers >= NVLS_MIN_RANKS)
			l->nvls_gbps = g->nvlink_gbps / 2.0 * NVLS_EFF;
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

double comm_time_ns(enum comm_op op, double bytes, uint32_t ranks, const struct comm_link *l)
{
	if (ranks <= 1 || bytes <= 0 || !l || l->bw_gbps <= 0)
		return 0;
	if (l->peers && ranks > l->peers && l->wide)
		l = l->wide;
	double n = ranks, traffic, bw = l->bw_gbps;
	switch (op) {
	case COMM_ALL_REDUCE:
		if (l->nvls_gbps > 0 && ranks >= NVLS_MIN_RANKS) {
			traffic = bytes;   /* NVLS: the switches reduce */
			bw = l->nvls_gbps;
		} else {
			traffic = 2.0 * (n - 1) / n * bytes;
		}
		break;
	case COMM_ALL_GATHER:
	case COMM_REDUCE_SCATTER:
		traffic = (n - 1) / n * bytes;
		break;
	case COMM_SEND_RECV:
		traffic = bytes;
		n = 2;
		if (l->p2p_gbps > 0)
			bw = l->p2p_gbps;
		break;
	default:
		return 0;
	}
	double lat_us = op == COMM_SEND_RECV ? l->p2p_us : l->latency_us + l->step_us * (n - 2);
	return lat_us * 1e3 + traffic / bw; /* bytes / (GB/s) = ns */
}

/*
 * The serving engines' custom all-reduce (serving-engines.md 3.1-3.3: vLLM
 * csrc/custom_all_reduce.cuh, SGLang's copy of it): every rank writes its
 * buffer into IPC-shared memory and reads its peers' over NVLink; no NCCL
 * launch, no ring.  Used for world sizes 2, 4, 6, 8 whose GPUs are all
 * NVLink-connected, up to 8 MiB (larger: NCCL).  One-shot (each rank reads
 * all n - 1 peer buffers whole) for TP 2, and below 512 KiB for TP <= 4 and
 * 256 KiB for TP <= 8; else two-shot (reduce-scatter then all-gather
 * through the shared buffers: 2 (n - 1) / n of the buffer over the links,
 * two barriers).  The fixed cost per stage, 6 us, is the middle of the
 * published 4-8 us of a graph-captured one-shot kernel on NVLink (H100:
 * SGLang PR #2904 3.7-5.9 us, vLLM PR #24111 7 us at 0.5 MB).
 */
#define CUSTOM_AR_STAGE_US 6.0
#define CUSTOM_AR_MAX_BYTES (8.0 * 1024 * 1024)

double comm_custom_all_reduce_ns(double bytes, uint32_t ranks, const struct comm_link *l)
{
	if (!l || !l->nvlink || l->bw_gbps <= 0 || bytes <= 0 || bytes > CUSTOM_AR_MAX_BYTES ||
	    (ranks != 2 && ranks != 4 && ranks != 6 && ranks != 8) || (l->peers && ranks > l->peers))
		return 0;
	double n = ranks;
	int one_shot = ranks == 2 || (ranks <= 4 && bytes < 512.0 * 1024) ||
		       (ranks <= 8 && bytes < 256.0 * 1024);
	if (one_shot)
		return CUSTOM_AR_STAGE_US * 1e3 + (n - 1) * bytes / l->bw_gbps;
	return 2 * CUSTOM_AR_STAGE_US * 1e3 + 2.0 * (n - 1) / n * bytes / l->bw_gbps;
}

int comm_is_custom_all_reduce(const char *name)
{
	return name && !strncmp(name, "cross_device_reduce", 19);
}

const char *comm_name(enum comm_op op)
{
	static const char *const names[] = { "none", "all-reduce", "all-gather", "reduce-scatter", "send/recv" };
	return (unsigned)op <= COMM_SEND_RECV ? names[op] : "?";
}
