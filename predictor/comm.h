/*
 * comm.h - times of the NCCL collectives (--dp/--tp/--pp/--cp of a model
 * run, the collectives of a trace built from one or recorded), from the
 * links of the system the GPUs sit in (gpu_specs/systems.csv: NVLink or
 * PCIe inside a node, the network between nodes), and the custom
 * all-reduce kernels of serving engines.  A predictor like the others: it
 * knows GPUs, systems and byte counts, nothing of models or traces.
 */
#ifndef SURFER_COMM_H
#define SURFER_COMM_H

#include <stdint.h>
#include "gpu_specs/gpu.h"

/* The collective a communication kernel stands for (the values of the
 * trace format's enum trace_collective). */
enum comm_op {
	COMM_NONE = 0, COMM_ALL_REDUCE, COMM_ALL_GATHER,
	COMM_REDUCE_SCATTER, COMM_SEND_RECV,
	COMM_BROADCAST, COMM_REDUCE, COMM_ALL_TO_ALL,
	COMM_OP_COUNT
};

/* The links collectives run over, as comm.c derives them from a GPU and
 * the system it sits in. */
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
	int ll128;             /* NCCL's LL128 protocol on (Hopper and later) */
	/* Between nodes (comm_link_init_system; all 0 for one node): */
	uint32_t node_gpus;    /* GPUs that reach each other without the
				* network: the host, or an NVLink domain that
				* spans hosts (GB200 NVL72: 72)              */
	double net_gbps;       /* achievable network rate of one GPU per
				* direction when all GPUs of its node send,
				* GB/s; 0: no network known                  */
	double net_p2p_gbps;   /* ... of one GPU sending alone (one NIC)     */
	double net_hop_us;     /* latency a ring step across the network adds
				* beyond NCCL's InfiniBand figures, us        */
	double custom_ar_us;   /* a serving engine's custom all-reduce: fixed
				* cost of one stage (barrier and launch), us */
};

/* The fitted constants of the model (comm.c gives what each was fitted on
 * and its held-out errors).  comm_default_params are the compiled-in ones;
 * a predictor may carry others (pred_config.comm: a fit without some
 * GPUs), through comm_link_init_params(). */
struct comm_params {
	double nvlink_eff;        /* ring collectives: share of the per-direction
				   * NVLink bandwidth                        */
	double nvls_eff;          /* NVLink SHARP all-reduce: share of it     */
	double nvlink_p2p_eff;    /* send/recv over NVLink: share of it       */
	double nvlink_latency_us; /* fixed cost of an NCCL ring collective over
				   * NVLink (Simple), us                     */
	double nvlink_p2p_us;     /* fixed cost of a send/recv over NVLink, us */
	double pcie_eff;          /* collectives over PCIe through host memory
				   * (no peer-to-peer, or not known): share of
				   * the host link's per-direction bandwidth */
	double pcie_p2p_eff;      /* rings crossing PCIe peer-to-peer (bridged
				   * pairs; PCIe boxes with pcie_p2p): share */
	double custom_ar_stage_us;/* a custom all-reduce stage's fixed cost, us */
};
extern const struct comm_params comm_default_params;
#define NVLS_MIN_RANKS 8

/* Fills l for collectives between GPUs of type g inside one node; pcie
 * receives the PCIe link that groups wider than g's NVLink domain use
 * (l->wide points to it, so it must live as long as l). */
void comm_link_init(const struct gpu_spec *g, struct comm_link *l, struct comm_link *pcie);

/* Same for the GPUs of system s (its GPU when g is NULL), with the network
 * between its nodes; s NULL: g's default system (gpu_system_default()),
 * else one node as comm_link_init() describes it. */
void comm_link_init_system(const struct gpu_spec *g, const struct gpu_system *s,
			   struct comm_link *l, struct comm_link *pcie);

/* comm_link_init_system() with the model's constants p (NULL: the
 * compiled-in comm_default_params); the two above are this with NULL. */
void comm_link_init_params(const struct gpu_spec *g, const struct gpu_system *s,
			   const struct comm_params *p, struct comm_link *l, struct comm_link *pcie);

/* Time in ns of collective op over bytes (the buffer each rank holds:
 * the reduced buffer for all-reduce, reduce and broadcast, the full output
 * for all-gather and reduce-scatter, the whole send buffer for all-to-all,
 * the message for send/recv) among ranks GPUs of one node. */
double comm_time_ns(enum comm_op op, double bytes, uint32_t ranks, const struct comm_link *l);

/* The same among ranks GPUs of which per_node share a node (the rest in
 * other nodes, per_node each; per_node 0 packs them: as many per node as
 * l->node_gpus holds).  Across nodes NCCL's hierarchical algorithms: ring
 * and tree (NVLS tree where the switches reduce), the faster one; a node
 * reaches the others through all its NICs at once. */
double comm_group_ns(enum comm_op op, double bytes, uint32_t ranks, uint32_t per_node,
		     const struct comm_link *l);

/* An all-to-all of node-limited routing (DeepSeek-V3, DeepEP; comm.c):
 * bytes each rank's send buffer of k rows a token, each token sent to at
 * most route_nodes nodes once per node and forwarded inside over NVLink;
 * ranks and per_node as comm_group_ns().  route_nodes 0 or one node: the
 * plain all-to-all of comm_group_ns(). */
double comm_routed_a2a_ns(double bytes, uint32_t k, uint32_t route_nodes, uint32_t ranks,
			  uint32_t per_node, const struct comm_link *l);

/* The custom all-reduce of serving engines (vLLM's custom_all_reduce.cuh,
 * SGLang's, for tensor parallelism inside one NVLink node): time in ns for
 * bytes among ranks GPUs, or 0 where the engine hands the call to NCCL
 * (no NVLink between all ranks, ranks not 2/4/6/8, bytes above the cap). */
double comm_custom_all_reduce_ns(double bytes, uint32_t ranks, const struct comm_link *l);

/* Its stages by size and world size alone, the links aside: 1 one-shot,
 * 2 two-shot, 0 where the engine hands the call to NCCL (ranks not
 * 2/4/6/8, bytes above the cap); the kernel a builder names. */
int comm_custom_all_reduce_stages(double bytes, uint32_t ranks);

/* The SMs DeepEP's all-to-all kernels hold while they run (DeepSeek-V3's
 * report, section 3.2.2: 20 of the H800's 132; DeepEP's default
 * Buffer.num_sms), and the name of the kernel a builder writes on the
 * compute stream for them under an overlapped all-to-all: an all-to-all
 * OP record, its time comm_a2a_sm_share_ns() of the all-to-all's. */
#define COMM_A2A_SMS 20
#define COMM_A2A_SM_SHARE_NAME "moe_a2a_overlap_sm_share"
int comm_is_a2a_sm_share(const char *kernel_name);

/* The compute time the SMs of an overlapped all-to-all of a2a_ns take
 * from the compute beside it on a GPU of sms SMs (header of comm.c). */
double comm_a2a_sm_share_ns(double a2a_ns, uint32_t sms);

/* The share of the SMs an NCCL collective over NVLink holds while it
 * runs beside compute (the header of comm.c: its channels, one thread
 * block each, filling an SM's registers), for a group of `ranks` GPUs;
 * 0 over PCIe (not measured), and the name of the kernel a built program
 * writes on the compute stream beside each collective it overlaps with
 * compute: that collective's OP record, its time comm_overlap_sm_ns() of
 * the collective's. */
#define COMM_SM_SHARE_NAME "nccl_overlap_sm_share"
int comm_is_sm_share(const char *kernel_name);
double comm_sm_share(uint32_t ranks, const struct comm_link *l);
double comm_overlap_sm_ns(double coll_ns, uint32_t ranks, const struct comm_link *l);

/* Whether a kernel of this name is an engine's custom all-reduce
 * (cross_device_reduce_1stage / _2stage). */
int comm_is_custom_all_reduce(const char *kernel_name);

const char *comm_name(enum comm_op op);

#endif
