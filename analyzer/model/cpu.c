/*
 * cpu.c - the CPU time PyTorch spends before each kernel of a built model
 * run is launched, per stack (model_cpu_ns(); the figures and their
 * sources are in model.h).  The timeline lets the GPU idle whenever the
 * kernels already queued finish before the CPU issues the next one, so
 * these costs decide the time of launch-bound runs (small models, small
 * batches, decode).
 *
 * What issues a kernel decides what it costs:
 *  - eager and te, forward: an aten op called from Python (argument
 *    parsing, the dispatcher, autograd's node, the launch); under eager
 *    Hugging Face's modules add their nn.Module calls, charged at the
 *    first forward kernel of each layer (and again when activation
 *    checkpointing runs the layer's forward in backward).
 *  - backward: the C++ autograd engine issues each node, no Python.
 *  - the optimizer: a foreach or fused multi-tensor launch, its Python
 *    walking the parameter lists.
 *  - compile: Inductor's wrapper launches each kernel; each compiled graph
 *    (a block's forward, its backward) pays its call (guards, the wrapper)
 *    once.  With CUDA graphs the replay is one launch (graph_regions in
 *    model.c puts the graph's call on its first kernel).
 *  - collectives and the serving engines' kernels keep the flat
 *    MODEL_LAUNCH_NS_DEFAULT: their issue paths (NCCL's C++ reducer,
 *    the engines' own loops) are not these.
 * It must stay a function of the kernel sequence alone: the same sequence
 * writes the same trace (--write-trace) and analyzes to the same time.
 */
#include "analyzer/model/model.h"

/* The nn.Module calls of layer L's forward in s from kernel i on: each
 * weight GEMM is an nn.Linear (PR #50431: +~5 us a call), plus the layer's
 * own containers, norms and activation (+2-3 us an empty module's call). */
static double module_ns(const struct model_seq *s, size_t i)
{
	const struct model_kernel *k0 = &s->v[i];
	double linears = 0;
	for (size_t j = i; j < s->n && s->v[j].layer == k0->layer; j++) {
		const struct model_kernel *k = &s->v[j];
		if (k->phase != k0->phase || k->role != k0->role)
			break;
		if (k->k.op == PRED_OP_GEMM && k->k.batch <= 1)
			linears++;
	}
	return linears * MODEL_CPU_LINEAR_CALL_NS + MODEL_CPU_LAYER_MODULES * MODEL_CPU_MODULE_CALL_NS;
}

/* Whether kernel i starts a new stretch of its layer's work (a block's
 * forward, its backward, its recomputed forward): the previous kernel of
 * the compute stream is of another layer, phase or role. */
static int starts_block(const struct model_seq *s, size_t i)
{
	const struct model_kernel *k = &s->v[i];
	for (size_t j = i; j-- > 0;) {
		const struct model_kernel *p = &s->v[j];
		if (p->async)
			continue;
		return p->layer != k->layer || p->phase != k->phase ||
		       (p->role == MODEL_ROLE_RECOMPUTE) != (k->role == MODEL_ROLE_RECOMPUTE);
	}
	return 1;
}

double model_cpu_ns(const struct model_opts *o, const struct model_seq *s, size_t i)
{
	const struct model_kernel *k = &s->v[i];
	int fwd = k->phase == MODEL_PH_FORWARD || k->role == MODEL_ROLE_RECOMPUTE;

	if (o->engine != MODEL_ENGINE_HF || k->phase == MODEL_PH_COMM || k->async)
		return MODEL_LAUNCH_NS_DEFAULT;
	if (k->in_op)          /* a launch from inside the previous kernel's op */
		return MODEL_LAUNCH_NS_DEFAULT;
	if (k->graph)          /* one launch for the replay (model.c adds its call) */
		return model_launch_ns(o);
	if (k->phase == MODEL_PH_OPTIMIZER)
		/* a foreach or fused op's call from Python and its lists (a
		 * bitsandbytes kernel's call, one tensor), its further launches
		 * from C++ above (in_op) */
		return MODEL_CPU_FORWARD_NS + MODEL_CPU_FOREACH_TENSOR_NS * k->op_tensors;
	if (k->role == MODEL_ROLE_GRAD_ACC || k->role == MODEL_ROLE_PER_STEP)
		return MODEL_CPU_BACKWARD_NS;
	if (o->stack == MODEL_STACK_COMPILE)
		return model_launch_ns(o) +
		       (k->layer >= 0 && starts_block(s, i) ? MODEL_GRAPH_CALL_NS : 0);
	if (!fwd)
		return MODEL_CPU_BACKWARD_NS;
	if (o->stack == MODEL_STACK_EAGER && k->layer >= 0 && starts_block(s, i))
		return MODEL_CPU_FORWARD_NS + module_ns(s, i);
	return MODEL_CPU_FORWARD_NS;
}
