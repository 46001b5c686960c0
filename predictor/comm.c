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
 * PCIe all-reduce reaches 0.33-0.36 of the link through host memory (RTX
 * 6000 Ada box, PCIe 4.0; RTX PRO 6000 box, four ranks) and 0.58-0.75
 * peer-to-peer (RTX PRO 6000 box, pairs, PCIe 5.0; vidur's bridged A100
 * pairs, PCIe 4.0): link_init() says which.
 *
 * Small messages: NCCL picks the protocol per call by its own cost model
 * (src/graph/tuning.cc, NCCL 2.30): LL (8-byte stores carrying a flag,
 * half the bandwidth, 0.6 us a ring step on NVLink, 2.7 us across the
 * network), LL128 (Hopper and later by default: 0.92 of the bandwidth,
 * 1.9 / 4 us a step) and Simple (full bandwidth).  A collective costs the
 * cheaper of LL128 (where NCCL enables it) and Simple; LL is left out
 * (proto_on() says why).  Simple is the fitted model above; LL128 takes
 * NCCL's base and per-step latencies, not fitted.
 *
 * More than one node (NCCL's hierarchical rings and trees; notes in
 * docs/model.md, "Collectives across nodes"): a ring of n = m x k ranks
 * (m nodes of k) crosses each node boundary once per channel, and NCCL
 * spreads the channels over the node's NICs, so the bytes that leave a
 * node share k GPUs' network rate: the ring runs at min(NVLink ring
 * rate, k x per-GPU network rate), with 2(m-1) network steps in its
 * latency.  The double binary tree between nodes (chains inside) moves
 * 2S over every link at 0.92 of that rate (NCCL converts a tree's bus
 * bandwidth to the algorithm's at 0.5), with 2 log2(m) network steps;
 * where the NVSwitches reduce (NVLS) the tree starts from the switch
 * (NVLSTree).  NCCL takes the faster; so does this.  Network rate: 0.8 of
 * the NICs' line rate ("expect ~80% of advertised", ml-engineering; 4x8
 * B200 over EFA: 74%), not fitted to the data here.
 *
 * Tried and not landed: a ramp on Simple's bandwidth time, x (1 +
 * (S_half / S)^p), for the slow climb of the measured bus bandwidth from
 * 8 to 512 MiB (this model is 15-34 % fast on the A100s at 8-64 MiB).
 * Fitted on one source's node-local all-reduces and checked on the
 * other's it helped (PipeWeave held out 8.5 -> 7.9 %, vidur 16.8 ->
 * 7.6 %), but the two fits disagree (4 MiB ^0.66, 14 MiB ^0.46) and on
 * the DGX H100 and multi-node figures of training-stacks.md, in neither
 * source, it moved the error only 21.3 -> 20.0 %, the H100 at 16 MiB
 * further off (docs/model.md, "Mid sizes", has the numbers).
 */
#include <math.h>
#include <string.h>

#include "predictor/comm.h"

/* The fit above; `surfer-bench comm` refits them from the same files
 * (with the GPUs of chosen compute capabilities left out: make
 * bench-serving holds out each architecture it reports on).  The custom
 * all-reduce's stage cost is a published figure, not fitted (below).
 * The host-memory PCIe share is the refit on every file, 0.36, where 0.5
 * stood from before PipeWeave's PCIe boxes were measured; each box's fit
 * predicts the other's rows (surfer-bench comm, rows of 1 MB and more):
 * the RTX 6000 Ada box's pairs at the RTX PRO 6000 box's four-rank 0.364
 * 1.5 % (27.6 % at 0.5), that box's four ranks at the RTX 6000 Ada's
 * 0.360 2.1 % (27.4 %); and DeepBench's 2017 boxes without peer-to-peer,
 * in no fit, PCIe 3.0 x16, two to eight ranks: P100 4.6-7.4 % (25.7-28.9
 * at 0.5), M40 6.1-8.6 (23.9-25.5), TITAN X (Maxwell) 8.3-10.6 (22.8-25.3):
 * their rings hold 0.37-0.40 of the link at every size.  DeepBench's GTX
 * 1080 Ti and TITAN X (Pascal) boxes had peer-to-peer (0.75 at two ranks:
 * systems.csv's rows for them).  The peer-to-peer share stays 0.75: one source's
 * fit does not carry to the other (vidur's bridged A100s' four-rank rings
 * at the RTX PRO 6000 pairs' 0.59 24.4 %, those pairs at the A100s' 0.75
 * 19.4 %). */
const struct comm_params comm_default_params = {
	.nvlink_eff = 0.75,
	.nvls_eff = 0.6,
	.nvlink_p2p_eff = 0.8,
	.nvlink_latency_us = 50.0,
	.nvlink_p2p_us = 8.0,
	.pcie_eff = 0.36,
	.pcie_p2p_eff = 0.75,
	.custom_ar_stage_us = 6.0,
};

/* NCCL's protocols (tuning.cc): base latency of a ring, us; per ring step
 * inside a node (NVLink) and across the network, us; share of the
 * bandwidth.  Simple's base and inside steps are the fitted model's. */
enum { P_LL, P_LL128, P_SIMPLE, P_COUNT };
static const double proto_base_us[P_COUNT] = { 6.6, 14.0, 8.4 };
static const double proto_hop_us[P_COUNT] = { 0.6, 1.9, 3.4 };
static const double proto_net_us[P_COUNT] = { 2.7, 4.0, 14.0 };
static const double proto_tree_net_us[P_COUNT] = { 5.0, 8.5, 14.0 };
static const double proto_eff[P_COUNT] = { 0.5, 0.92, 1.0 };
#define TREE_EFF 0.92          /* NCCL caps tree all-reduce at 0.92x       */
#define NET_EFF 0.8            /* of the NICs' line rate                   */
#define NVLS_TREE_US 20.9      /* NCCL's NVLSTree network latency          */
/* The network latency NCCL's figures assume (InfiniBand, GPUDirect RDMA):
 * a system whose one-way latency is higher adds the difference per step. */
#define NET_REF_LATENCY_US 2.0

/* LL is left out over NVLink: at NCCL's figures (even with its bandwidth
 * capped at NCCL's llMaxBws, 87.7 GB/s on Ampere) it makes
 * the A100 all-reduces of 64 KB-8 MB faster than measured (vidur A100
 * DGX 2 ranks: 15.1% -> 23.2% mean error over all sizes, PipeWeave A100
 * 8 ranks 10.8% -> 12.2%); LL128 where NCCL enables it (Hopper and later)
 * brings H20 4 ranks from 17.6% to 8.0%, H20 8 ranks 8.0% -> 5.9%, H800
 * 5.7% -> 4.6%, and changes nothing else.  Over PCIe LL is what NCCL
 * runs small messages with, and what PipeWeave's two-rank all-reduces
 * show: RTX 6000 Ada 5.2 / 14.8 / 29.2 / 38.5 us at 2 / 66 / 130 / 258
 * KiB, Simple's 30 us latency alone gave 30.1 / 34.3 / 38.5 / 46.8, LL
 * gives 8.1 / 16.4 / 24.7 / 41.3 (RTX PRO 6000: 10.8 / 14.5 / 17.6 us
 * measured, 17.9 / 20.1 / 22.4 -> 7.9 / 12.1 / 16.2); from 512 KiB on
 * Simple is the faster (63.4 us against 63.2 measured), so nothing of
 * 1 MB and more (surfer-bench comm) moves.  A decode step's all-reduces
 * are of this size: Qwen3-32B at TP 2, 12 rows, 120 KiB each. */
static int proto_on(int p, const struct comm_link *l)
{
	return p == P_SIMPLE || (p == P_LL128 && l->ll128) || (p == P_LL && !l->nvlink);
}

/* p2p: the GPUs of a group of that many reach each other peer-to-peer
 * over PCIe (the system's pcie_p2p, gpu_specs/systems.csv; 0 none).
 * Without it NCCL's SHM transport stages every chunk in host memory, and
 * a ring over PCIe runs at pcie_eff of the link (PipeWeave's RTX 6000 Ada
 * box, 0.36); inside the group the ring's chunks go from card to card as
 * the bridged pairs' ring crosses PCIe, at pcie_p2p_eff (vidur's A100
 * pairs 0.75, PipeWeave's RTX PRO 6000 box's pairs 0.58); a ring of more
 * ranks than the group crosses the host path (that box's four ranks:
 * 0.33-0.35).  One constant for both boxes took either box's all-reduces
 * from the other's rate: 0.36 for the RTX PRO 6000 had its Qwen3-32B TP 2
 * prefills 9-34 % slow (make bench-serving). */
static void link_init(const struct gpu_spec *g, const struct comm_params *p, uint32_t p2p,
		      struct comm_link *l, struct comm_link *pcie)
{
	double host = g ? gpu_host_link_gbps(g) : 0;
	if (host <= 0)
		host = 16.0; /* PCIe 3.0 x16 */
	*pcie = (struct comm_link){ .bw_gbps = host * p->pcie_eff,
				    .latency_us = 30.0, .step_us = 5.0, .p2p_us = 10.0 };
	if (g && g->nvlink_gbps > 0) {
		*l = (struct comm_link){ .nvlink = 1, .bw_gbps = g->nvlink_gbps / 2.0 * p->nvlink_eff,
					 .latency_us = p->nvlink_latency_us, .p2p_us = p->nvlink_p2p_us,
					 .peers = g->nvlink_peers, .wide = pcie };
		l->p2p_gbps = g->nvlink_gbps / 2.0 * p->nvlink_p2p_eff;
		if (!gpu_cc_is_amd(g->cc) && g->cc >= 90 && g->nvlink_peers >= NVLS_MIN_RANKS)
			l->nvls_gbps = g->nvlink_gbps / 2.0 * p->nvls_eff;
		/* Bridged PCIe cards: a ring of more than two crosses PCIe
		 * between pairs.  Every link of a ring carries the same bytes,
		 * so the PCIe hops set the pace, at the efficiency of PCIe
		 * peer-to-peer through a switch (vidur's A100 pairs, 4 ranks:
		 * busbw 23-24 GB/s of 31.5). */
		pcie->bw_gbps = host * p->pcie_p2p_eff;
	} else {
		*l = *pcie;
		if (p2p >= 2) {
			l->bw_gbps = host * p->pcie_p2p_eff;
			l->peers = p2p;
			l->wide = pcie;
		}
	}
	l->ll128 = pcie->ll128 = g && !gpu_cc_is_amd(g->cc) && g->cc >= 90;
	l->custom_ar_us = pcie->custom_ar_us = p->custom_ar_stage_us;
}

void comm_link_init(const struct gpu_spec *g, struct comm_link *l, struct comm_link *pcie)
{
	link_init(g, &comm_default_params, 0, l, pcie);
}

void comm_link_init_system(const struct gpu_spec *g, const struct gpu_system *s,
			   struct comm_link *l, struct comm_link *pcie)
{
	comm_link_init_params(g, s, NULL, l, pcie);
}

void comm_link_init_params(const struct gpu_spec *g, const struct gpu_system *s,
			   const struct comm_params *p, struct comm_link *l, struct comm_link *pcie)
{
	if (!g && s)
		g = s->gpu;
	if (!s)
		s = gpu_system_default(g);
	link_init(g, p ? p : &comm_default_params, s ? s->pcie_p2p : 0, l, pcie);
	if (!s)
		return;
	/* The system's NVLink domain decides over the GPU's: a domain wider
	 * than a host (NVL72) keeps its collectives off the network. */
	if (l->nvlink) {
		l->peers = s->nvlink_domain;
		if (!s->nvls)
			l->nvls_gbps = 0;
	}
	uint32_t fast = s->nvlink_domain > s->gpus_per_node ? s->nvlink_domain : s->gpus_per_node;
	double net = gpu_system_net_gbps(s), nic = s->nic_gbit / 8.0;
	double hop = s->net_latency_us > NET_REF_LATENCY_US ? s->net_latency_us - NET_REF_LATENCY_US : 0;
	l->node_gpus = pcie->node_gpus = fast;
	l->net_gbps = pcie->net_gbps = net * NET_EFF;
	/* one GPU alone: its own NICs, or the whole NIC it shares */
	l->net_p2p_gbps = pcie->net_p2p_gbps = (net > nic ? net : nic) * NET_EFF;
	l->net_hop_us = pcie->net_hop_us = hop;
}

/* Per-protocol cost of one collective inside a node: latency in us and
 * traffic over bandwidth in ns, the cheapest protocol. */
static double pick_proto(double simple_lat_us, double steps, double traffic, double bw,
			 const struct comm_link *l)
{
	double best = simple_lat_us * 1e3 + traffic / bw;
	for (int p = P_LL; p < P_SIMPLE; p++) {
		if (!proto_on(p, l))
			continue;
		double t = (proto_base_us[p] + steps * proto_hop_us[p]) * 1e3 +
			   traffic / (bw * proto_eff[p]);
		if (t < best)
			best = t;
	}
	return best;
}

/* One node (or one NVLink domain): the fitted model. */
static double node_ns(enum comm_op op, double bytes, uint32_t ranks, const struct comm_link *l)
{
	if (l->peers && ranks > l->peers && l->wide)
		l = l->wide;
	double n = ranks, traffic, bw = l->bw_gbps, steps = 2 * (n - 1);
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
		steps = n - 1;
		break;
	case COMM_BROADCAST:
	case COMM_REDUCE:
		traffic = bytes;   /* a pipelined chain: each link carries it once */
		steps = n - 1;
		break;
	case COMM_ALL_TO_ALL:
		/* every rank sends (n-1)/n of its buffer, one peer at a time */
		return l->p2p_us * 1e3 + (n - 1) / n * bytes / (l->p2p_gbps > 0 ? l->p2p_gbps : bw);
	case COMM_SEND_RECV:
		return l->p2p_us * 1e3 + bytes / (l->p2p_gbps > 0 ? l->p2p_gbps : bw);
	default:
		return 0;
	}
	return pick_proto(l->latency_us + l->step_us * (n - 2), steps, traffic, bw, l);
}

/* An all-to-all across nodes of k ranks: in_bytes of each GPU's buffer
 * over NVLink, net_bytes through its share of the node's NICs, the two at
 * once; one send's latency and one network hop. */
static double a2a_nodes_ns(double in_bytes, double net_bytes, double k, const struct comm_link *l)
{
	const struct comm_link *in = l->peers && k > l->peers && l->wide ? l->wide : l;
	double node_net = l->net_gbps * (l->node_gpus ? l->node_gpus : k);
	double net = fmin(k * l->net_p2p_gbps, node_net);
	double p2p = in->p2p_gbps > 0 ? in->p2p_gbps : in->bw_gbps;
	double t_in = in_bytes / p2p, t_net = net_bytes / (net / k);
	return (in->p2p_us + proto_net_us[P_SIMPLE] + l->net_hop_us) * 1e3 + (t_in > t_net ? t_in : t_net);
}

/* Across m nodes of k ranks: ring and tree, the faster (header comment). */
static double nodes_ns(enum comm_op op, double bytes, double n, double k, const struct comm_link *l)
{
	const struct comm_link *in = l->peers && k > l->peers && l->wide ? l->wide : l;
	/* the k ranks of a node share its NICs: each at most what one GPU
	 * alone reaches, together at most the node's rate */
	double node_net = l->net_gbps * (l->node_gpus ? l->node_gpus : k);
	double m = ceil(n / k), intra = in->bw_gbps, net = fmin(k * l->net_p2p_gbps, node_net);
	double ring_bw = intra < net ? intra : net;
	double hop = l->net_hop_us, best = INFINITY;

	switch (op) {
	case COMM_ALL_REDUCE: {
		double intra_steps = 2 * (n - m), net_steps = 2 * (m - 1);
		double tree_net = 2 * log2(m), tree_intra = 2 * (k - 1);
		for (int p = P_LL; p < P_COUNT; p++) {
			if (p == P_LL128 && !l->ll128)
				continue;
			/* Simple: the fitted latency holds the steps inside */
			double base = p == P_SIMPLE ? in->latency_us : proto_base_us[p];
			double hop_in = p == P_SIMPLE ? 0 : proto_hop_us[p];
			double ring = (base + intra_steps * hop_in +
				       net_steps * (proto_net_us[p] + hop)) * 1e3 +
				      2 * (n - 1) / n * bytes / (ring_bw * proto_eff[p]);
			double tree = (base + tree_intra * hop_in +
				       tree_net * (proto_tree_net_us[p] + hop)) * 1e3 +
				      2 * bytes / (ring_bw * proto_eff[p] * TREE_EFF);
			best = fmin(best, fmin(ring, tree));
		}
		if (l->nvls_gbps > 0 && k >= NVLS_MIN_RANKS) {
			/* NVLSTree: the switches reduce inside, a tree between */
			double t_in = bytes / l->nvls_gbps, t_net = 2 * bytes / net;
			double t = (in->latency_us + tree_net * (NVLS_TREE_US + hop)) * 1e3 +
				   (t_in > t_net ? t_in : t_net);
			best = fmin(best, t);
		}
		return best;
	}
	case COMM_ALL_GATHER:
	case COMM_REDUCE_SCATTER:
	case COMM_BROADCAST:
	case COMM_REDUCE: {
		double share = op == COMM_ALL_GATHER || op == COMM_REDUCE_SCATTER ? (n - 1) / n : 1;
		for (int p = P_LL; p < P_COUNT; p++) {
			if (p == P_LL128 && !l->ll128)
				continue;
			double base = p == P_SIMPLE ? in->latency_us : proto_base_us[p];
			double hop_in = p == P_SIMPLE ? 0 : proto_hop_us[p];
			double t = (base + (n - m) * hop_in + (m - 1) * (proto_net_us[p] + hop)) * 1e3 +
				   share * bytes / (ring_bw * proto_eff[p]);
			best = fmin(best, t);
		}
		return best;
	}
	case COMM_ALL_TO_ALL:
		/* the bytes for peers in other nodes leave through the GPU's
		 * share of the NICs, those for its own node over NVLink */
		return a2a_nodes_ns((k - 1) / n * bytes, (n - k) / n * bytes, k, l);
	case COMM_SEND_RECV:
		return (in->p2p_us + proto_net_us[P_SIMPLE] + hop) * 1e3 + bytes / l->net_p2p_gbps;
	default:
		return 0;
	}
}

double comm_group_ns(enum comm_op op, double bytes, uint32_t ranks, uint32_t per_node,
		     const struct comm_link *l)
{
	if (ranks <= 1 || bytes <= 0 || !l || l->bw_gbps <= 0)
		return 0;
	if (per_node == 0)
		per_node = l->node_gpus ? l->node_gpus : ranks;
	if (per_node >= ranks || l->net_gbps <= 0)
		return node_ns(op, bytes, ranks, l);
	return nodes_ns(op, bytes, ranks, per_node, l);
}

/*
 * DeepSeek-V3's node-limited all-to-all (its report, section 3.2.2; DeepEP's
 * internode kernels): each token's k rows go to experts on at most M
 * nodes; a row bound for another node crosses the network once per node
 * (to the GPU of the same index there) and is forwarded over NVLink to
 * the GPUs that hold its experts.  With m nodes of k' ranks, a token
 * reaches D = min(M, k, m) nodes, its own among them with probability
 * D / m at uniform routing, so D (m - 1) / m copies of its row (bytes / k
 * each) cross the network, against k (n - k') / n without the limit.
 * Inside the destination node each of the k rows lands on its expert's
 * GPU, the one that received it with probability 1 / k': (k' - 1) / k' of
 * the buffer over NVLink.  The two proceed at once (DeepEP overlaps the
 * forwarding with the receiving), the longer one is the time.  Inside
 * one node, or M 0, the plain all-to-all.
 */
double comm_routed_a2a_ns(double bytes, uint32_t k, uint32_t route_nodes, uint32_t ranks,
			  uint32_t per_node, const struct comm_link *l)
{
	if (per_node == 0 && l)
		per_node = l->node_gpus ? l->node_gpus : ranks;
	if (!route_nodes || !k || !l || per_node >= ranks || l->net_gbps <= 0 || bytes <= 0 ||
	    l->bw_gbps <= 0)
		return comm_group_ns(COMM_ALL_TO_ALL, bytes, ranks, per_node, l);
	double kn = per_node, m = ceil((double)ranks / kn);
	double d = fmin(fmin((double)route_nodes, (double)k), m);
	return a2a_nodes_ns((kn - 1) / kn * bytes, bytes / (double)k * d * (m - 1) / m, kn, l);
}

double comm_time_ns(enum comm_op op, double bytes, uint32_t ranks, const struct comm_link *l)
{
	return comm_group_ns(op, bytes, ranks, ranks, l);
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
#define CUSTOM_AR_MAX_BYTES (8.0 * 1024 * 1024)

int comm_custom_all_reduce_stages(double bytes, uint32_t ranks)
{
	if (bytes > CUSTOM_AR_MAX_BYTES || (ranks != 2 && ranks != 4 && ranks != 6 && ranks != 8))
		return 0;
	return ranks == 2 || (ranks <= 4 && bytes < 512.0 * 1024) || bytes < 256.0 * 1024 ? 1 : 2;
}

double comm_custom_all_reduce_ns(double bytes, uint32_t ranks, const struct comm_link *l)
{
	int stages = comm_custom_all_reduce_stages(bytes, ranks);
	if (!l || !l->nvlink || l->bw_gbps <= 0 || bytes <= 0 || !stages ||
	    (l->peers && ranks > l->peers))
		return 0;
	double n = ranks;
	if (stages == 1)
		return l->custom_ar_us * 1e3 + (n - 1) * bytes / l->bw_gbps;
	return 2 * l->custom_ar_us * 1e3 + 2.0 * (n - 1) / n * bytes / l->bw_gbps;
}

/*
 * An all-to-all overlapped with compute (DualPipe, Megatron-Core's EP A2A
 * overlap) holds COMM_A2A_SMS of the GPU's SMs while it runs, A ns; the
 * compute beside it runs on the others.  Compute of S ns alone then takes
 * max(A, S + A s / SMs): during A it does A (SMs - s) / SMs of its work,
 * the rest at the full rate; or the all-to-all is the longer.  The builder
 * writes the A s / SMs on the compute stream ahead of that compute (the
 * all-to-all beside it on the side stream, the compute after the next one
 * waiting for it), so the timeline's max is that one.  A GPU of no more
 * SMs than that: all of A.
 */
double comm_a2a_sm_share_ns(double a2a_ns, uint32_t sms)
{
	if (!(a2a_ns > 0))
		return 0;
	return sms > COMM_A2A_SMS ? a2a_ns * COMM_A2A_SMS / (double)sms : a2a_ns;
}

int comm_is_a2a_sm_share(const char *name)
{
	return name && !strcmp(name, COMM_A2A_SM_SHARE_NAME);
}

/*
 * A collective overlapped with compute (FSDP's gathers and reduce-scatters,
 * DDP's and ZeRO's gradient buckets, Megatron's overlapped data-parallel
 * and tensor-parallel collectives, ring attention's exchanges) takes SMs
 * from the compute beside it, as the all-to-all above does: NCCL runs one
 * thread block per channel, and a real trace shows the blocks fill their
 * SMs.  HolisticTraceAnalysis's control-a100 trace (eight A100s on
 * NVSwitch, 108 SMs each, world size 8): every AllReduce of 1 to 181 MB
 * ran 24 blocks of 512-640 threads at 96 registers a thread, 49-61 K of
 * the SM's 64 K registers, so no GEMM block (a full register file) runs
 * beside one; its SendRecv kernels 7, 8 or 24 blocks.  Its nccl-a100 trace
 * (two ranks): every AllReduce (up to 31 MB) 8 blocks, its Broadcasts 1 or
 * 8.  So the share is 24 / 108 of the SMs for a group of more than two
 * ranks and 8 / 108 for two, carried to other GPUs as a share of their SMs
 * (NCCL sizes its channels to the links, and newer links come with
 * faster SMs: unmeasured).  The test-v100 trace (two V100s, NVLink2, 80
 * SMs) ran 2 blocks where the share says 6: a slower link than the
 * A100's, the one measured point it does not describe.  Over PCIe nothing
 * is measured: 0.
 * Compute of S ns beside a collective of C ns then takes S + C x share
 * (the all-to-all's form above), which the builder writes as a kernel of
 * C x share on the compute stream (program.c); where the compute stream
 * waits for the collective instead, that kernel runs inside the wait.
 */
#define COMM_SM_SHARE_PAIR (8.0 / 108)
#define COMM_SM_SHARE_RING (24.0 / 108)

int comm_is_sm_share(const char *name)
{
	return name && !strcmp(name, COMM_SM_SHARE_NAME);
}

double comm_sm_share(uint32_t ranks, const struct comm_link *l)
{
	if (!l || !l->nvlink || ranks < 2)
		return 0;
	return ranks == 2 ? COMM_SM_SHARE_PAIR : COMM_SM_SHARE_RING;
}

double comm_overlap_sm_ns(double coll_ns, uint32_t ranks, const struct comm_link *l)
{
	return coll_ns > 0 ? coll_ns * comm_sm_share(ranks, l) : 0;
}

int comm_is_custom_all_reduce(const char *name)
{
	return name && !strncmp(name, "cross_device_reduce", 19);
}

const char *comm_name(enum comm_op op)
{
	static const char *const names[] = { "none", "all-reduce", "all-gather", "reduce-scatter",
					     "send/recv", "broadcast", "reduce", "all-to-all" };
	return (unsigned)op < COMM_OP_COUNT ? names[op] : "?";
}
