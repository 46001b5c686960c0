/*
 * stage.c - which layers each pipeline stage holds (--pp-partition), and
 * which stage bounds the step.
 *
 * A 1F1B pipeline of M microbatches runs at the pace of its slowest stage:
 * each microbatch's forward on stage r waits for stage r - 1's, its
 * backward for stage r + 1's, so in the steady state every stage does one
 * forward and one backward per slowest-stage time, and the step is about
 * M times the slowest stage's (forward + backward) plus one microbatch
 * through the others (the fill and drain; Narayanan et al. 2021, arXiv
 * 2104.04473, sec. 2.2.1, for equal stages: (M + pp - 1) microbatch
 * times).  The model path builds one stage (model.c) and writes the step
 * as pp - 1 peer passes of it and its M microbatches (program.c); the
 * stage it builds is the slowest, so its fill and drain are counted at
 * that stage's pace, at most (pp - 1) / M of the step too long where the
 * others are faster.
 *
 * The partitions:
 *  - uniform: Megatron's default (the layers split evenly, `num_layers`
 *    divisible by the pipeline size; the embedding on the first stage, the
 *    final norm, output layer and loss on the last).  The last stage is the
 *    slowest (the same layers and the LM head) and is the one built.
 *  - cost: nanotron's build_model (src/nanotron/models/base.py): the model's
 *    pipeline blocks in order (token embedding, decoder layers, final norm,
 *    LM head, FP32 cast, loss) each cost model.get_block_compute_costs()
 *    (Llama: 4 heads d_qkv h + 3 ffn h a decoder layer with d_qkv =
 *    h / heads, vocab h the LM head, 0 the others); with the cumulative
 *    cost c_i after block i and the thresholds t_r = C (r + 1) / pp of
 *    the total C, block i goes to the current stage r, which moves on to
 *    r + 1 once c_i > t_r.  The layer that crosses a threshold stays on
 *    the earlier stage, so the first stages get the rounding: Llama 1B
 *    (h 2048, ffn 4096, 24 layers, vocab 50257) on 4 stages is 7, 7, 6 and
 *    4 layers plus the head.  The stages differ by more than the head, so
 *    model_pp_pick_stage() predicts each and builds the slowest.
 *    Unverified: the rule and the cost formula are written from memory of
 *    those two functions; their source could not be read where this was
 *    written, and neither the shared notes nor the published run's files
 *    state the split.  Check them before relying on the stage chosen.
 *
 * Not modelled: nanotron's one published pipeline run (NB3, Llama 1B on
 * dp 2 x pp 4, 128 microbatches) took 1.62 x the step of its slowest
 * stage so built, where the same layers without a pipeline (NB1, NB2)
 * are predicted within 3.3 %; the bubble, the sends and the fill at the
 * slowest stage's pace are 3 % of it.  A schedule that held a stage's
 * forward output until its next backward would give 1.5-1.7 x, but the
 * order of nanotron's pipeline-state sends and receives could not be
 * read, so no such rule is applied (docs/accuracy.md).
 */
#include "analyzer/model/model.h"
#include "analyzer/model/run.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

int model_pp_partition_parse(const char *s, enum model_pp_partition *out)
{
	if (!strcasecmp(s, "uniform"))
		*out = MODEL_PP_UNIFORM;
	else if (!strcasecmp(s, "cost"))
		*out = MODEL_PP_COST;
	else
		return SURFER_EINVAL;
	return 0;
}

uint32_t model_pp_built_stage(const struct model_opts *o)
{
	uint32_t pp = o->pp ? o->pp : 1;
	return o->pp_stage && o->pp_stage <= pp ? o->pp_stage - 1 : pp - 1;
}

/* nanotron's split of c over pp stages: each stage's layers in
 * first[r], n[r] (arrays of pp), the head's stage in *head.  0, or
 * SURFER_EINVAL (reason in err) for a model the rule is not written for,
 * a stage left without a block, or the blocks after the head (cast, loss)
 * put on a stage of their own. */
static int cost_split(const struct model_config *c, const struct model_opts *o, uint32_t pp,
		      uint32_t *first, uint32_t *n, uint32_t *head, char *err, size_t errlen)
{
	if (c->dec_layers || c->experts > 1 || c->kv_lora) {
		snprintf(err, errlen, "--pp-partition cost is nanotron's split of a dense decoder's "
			 "layers; '%s' is not one (use uniform)", c->name);
		return SURFER_EINVAL;
	}
	double h = c->hidden, layer = 4.0 * h * h + 3.0 * (double)c->ffn * h;
	double V = o->head == MODEL_HEAD_CLASSIFY ? MODEL_CLASSIFY_LABELS : c->vocab;
	double total = c->layers * layer + V * h;
	uint32_t L = c->layers, r = 0, tail = 0;
	double cum = 0;
	for (uint32_t k = 0; k < pp; k++)
		first[k] = n[k] = 0;
	/* the blocks in order: embedding (cost 0), the layers, the final norm
	 * (0), the head, the FP32 cast (0), the loss (0); block b goes to r,
	 * then r moves on once the cumulative cost passes r's threshold */
	for (uint32_t b = 0; b < L + 5; b++) {
		if (b >= 1 && b <= L) {
			cum += layer;
			if (!n[r])
				first[r] = b - 1;
			n[r]++;
		} else if (b == L + 1) {
			*head = r;        /* the final norm */
		} else if (b == L + 2) {
			cum += V * h;
			tail |= r != *head;
		} else if (b > L + 2) {
			tail |= r != *head;
		}
		if (cum > total * ((double)(r + 1) / pp) && r + 1 < pp)
			r++;
	}
	if (tail) {
		snprintf(err, errlen, "--pp-partition cost: %u stages split %u layers so that the head "
			 "and the loss land on different stages; use fewer stages", pp, L);
		return SURFER_EINVAL;
	}
	for (uint32_t k = 0; k < pp; k++)
		if (!n[k] && k != *head) {
			snprintf(err, errlen, "--pp-partition cost leaves stage %u of %u without a layer "
				 "(%u layers); use fewer stages", k, pp, L);
			return SURFER_EINVAL;
		}
	return 0;
}

int model_pp_stage(const struct model_config *c, const struct model_opts *o, uint32_t k,
		   uint32_t *first, uint32_t *n, char *err, size_t errlen)
{
	char dummy[8];
	uint32_t total = c->layers + c->dec_layers, pp = o->pp ? o->pp : 1;
	if (!err) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	*first = 0;
	*n = total;
	if (pp <= 1)
		return 1;
	if (k >= pp) {
		snprintf(err, errlen, "pipeline stage %u of %u", k, pp);
		return SURFER_EINVAL;
	}
	if (o->pp_partition == MODEL_PP_COST) {
		uint32_t f[1024], m[1024], head = 0;
		if (pp > 1024) {
			snprintf(err, errlen, "--pp %u: at most 1024 stages", pp);
			return SURFER_EINVAL;
		}
		int rc = cost_split(c, o, pp, f, m, &head, err, errlen);
		if (rc)
			return rc;
		*first = f[k];
		*n = m[k];
		return k == head;
	}
	/* uniform: ceil(layers / pp) a stage, the last holding the final
	 * ones (where pp does not divide the layers, which Megatron refuses,
	 * the earlier stages' count is the same, the last ones overlapping) */
	uint32_t per = (total + pp - 1) / pp;
	if (k == pp - 1) {
		*first = total - per;
		*n = per;
		return 1;
	}
	*first = k * per < total ? k * per : total;
	*n = total - *first < per ? total - *first : per;
	return 0;
}

int model_pp_pick_stage(const struct model_config *c, struct model_opts *o,
			const struct gpu_spec *target, double launch_ns)
{
	if (o->pp <= 1 || o->engine != MODEL_ENGINE_HF || o->pp_partition != MODEL_PP_COST ||
	    o->pp_stage || !target)
		return 0;
	double worst = -1;
	uint32_t pick = 0;
	for (uint32_t k = 0; k < o->pp; k++) {
		struct model_opts x = *o;
		struct model_seq s;
		struct model_timing t;
		x.pp_stage = k + 1;
		int rc = model_build(c, &x, &s, NULL, 0);
		if (rc)
			return rc;
		rc = model_time(&s, &x, target, launch_ns, &t);
		model_seq_release(&s);
		if (rc)
			return rc;
		if (t.iteration_ns > worst) {
			worst = t.iteration_ns;
			pick = k + 1;
		}
	}
	o->pp_stage = pick;
	return 0;
}
