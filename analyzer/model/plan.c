/*
 * plan.c - surfer-analyze --model ... --plan N: every way of running
 * the model on N GPUs (data x tensor x pipeline parallel degrees whose
 * product is N), each predicted on every target with its memory estimate,
 * those that fit first, each group fastest first.  --batch is then the
 * global batch, split over the data-parallel ranks, so that the layouts do
 * the same work.  The GPUs sit
 * in nodes of the target's system (--system, else its default;
 * gpu_specs/systems.csv): a layout wider than a node pays the network for
 * the groups that cross nodes, and with --zero 2 or 3 each layout whose
 * data-parallel group crosses nodes is tried as FSDP and as HSDP.  A
 * mixture of experts of the Llama family (Mixtral, DeepSeek) is tried at
 * every expert-parallel degree that divides both the data-parallel degree
 * and the experts (--ep; with --zero 2 or 3 only where FSDP2 runs them,
 * not as HSDP).  Training without --zero tries each layout of several
 * data-parallel ranks as plain DDP, with ZeRO-1's sharded optimizer and as
 * FSDP (ZeRO 3; with a pipeline only where FSDP2 runs it): what a user
 * sizing a cluster would try, and what the stacks run.
 * A pipeline without --microbatches is tried with the fewest microbatches
 * and with at least four times its depth (predict_layout()); a training
 * layout that does not fit, with checkpointing and, without a pipeline,
 * with its rank's batch in gradient-accumulation steps
 * (predict_layout_mb()).
 * An engine's served batch (--mode serve --new-tokens N) is planned as
 * its whole batch per replica, with the prefill timed on its own for the
 * time to first token; an engine's sequences of their own lengths or
 * outputs are dealt to the replicas in turn (predict_shares()).
 * The layouts of a target are independent of each other, and --jobs N
 * threads predict them at once (predict_layouts()): the building, timing
 * and predictors keep no state between calls but their read-only tables,
 * each layout's result goes to its own slot, and the sort comes after,
 * so the table is the same for every N.
 */
#include "analyzer/model/run.h"
#include "analyzer/progress.h"
#include "analyzer/report.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <unistd.h>

struct layout {
	uint32_t dp, tp, pp, mb;
	uint32_t ep;            /* expert parallel degree (1 none)             */
	uint32_t zero;          /* its ZeRO stage (--zero)                     */
	uint32_t ga;            /* gradient accumulation steps it was predicted
	                         * with, the rank's batch split in ga (0, 1 none) */
	enum model_ckpt ckpt;   /* the checkpointing it was predicted with     */
	int hsdp;               /* FSDP sharded within a node (--hsdp)         */
	int hidden;             /* not a layout of this run (an HSDP twin that
				 * is plain FSDP on g, offload without ZeRO's
				 * sharding, a layout --lora is not built
				 * in): skip                                 */
	int ok;                 /* built; else why holds the reason            */
	int fits;               /* its memory peak fits the target being ranked */
	char why[256];          /* whole: the table, JSON's skipped and the
	                         * refusal of a plan none builds print it */
	double iteration_ns, comm_exposed_ns, peak;
	double ttft_ns, tpot_ns;  /* --mode serve: its prefill, and its decode
				   * steps' mean ((whole - prefill) / (N - 1);
				   * NaN for one new token)                   */
	double ttft_low_ns, ttft_high_ns, tpot_low_ns, tpot_high_ns; /* their
				   * intervals: the prefill's, and the rest of
				   * the whole's ends the same way            */
	double low_ns, high_ns, interval;   /* the interval around iteration_ns */
};

static int cmp_layout(const void *a, const void *b)
{
	const struct layout *x = a, *y = b;
	if (x->hidden != y->hidden)
		return x->hidden - y->hidden;
	if (x->ok != y->ok)
		return y->ok - x->ok;
	if (!x->ok)
		return 0;
	if (x->fits != y->fits)   /* what runs comes before what would be faster with more memory */
		return y->fits - x->fits;
	return (x->iteration_ns > y->iteration_ns) - (x->iteration_ns < y->iteration_ns);
}

/* The layouts of n GPUs: every dp x tp x pp == n, tp outermost, at each
 * ZeRO stage of zeros[0..nzeros) (one, as given, or explore: 0, 1 and 3,
 * the sharded ones only with dp > 1 and FSDP with a pipeline only where
 * it is FSDP2, fsdp2); a layout at --zero 2 or 3 with dp > 1 twice, the
 * second as HSDP; with experts (0: a dense model, or expert parallelism
 * not tried) each below --zero 2, and under FSDP2 each FSDP one (not its
 * HSDP twin), again at every ep > 1 dividing dp and the experts. */
static size_t layouts_of(uint32_t n, const uint32_t *zeros, size_t nzeros, int explore,
			 int fsdp2, uint32_t experts, struct layout *v, size_t cap)
{
	size_t k = 0;
	for (uint32_t tp = 1; tp <= n && tp <= 1024; tp++) {
		if (n % tp)
			continue;
		for (uint32_t pp = 1; pp <= n / tp && pp <= 1024; pp++) {
			if ((n / tp) % pp)
				continue;
			uint32_t dp = n / tp / pp;
			for (size_t z = 0; z < nzeros && k < cap; z++) {
				if (explore && zeros[z] &&
				    (dp == 1 || (zeros[z] >= 2 && pp > 1 && !fsdp2)))
					continue;
				memset(&v[k], 0, sizeof(v[k]));
				v[k].tp = tp;
				v[k].pp = pp;
				v[k].dp = dp;
				v[k].ep = 1;
				v[k].zero = zeros[z];
				size_t base = k++;
				if (zeros[z] >= 2 && dp > 1 && k < cap) {
					v[k] = v[k - 1];
					v[k].hsdp = 1;
					k++;
				}
				for (uint32_t ep = 2; experts && (zeros[z] < 2 || fsdp2) && ep <= dp && k < cap;
				     ep++) {
					if (dp % ep || experts % ep)
						continue;
					v[k] = v[base];
					v[k].ep = ep;
					k++;
				}
			}
		}
	}
	return k;
}

/* The experts --plan splits with --ep: those of a Llama-family mixture of
 * experts (model.c's grouped layer), 0 for other models. */
static uint32_t plan_experts(const struct model_config *c)
{
	return c->family == MODEL_FAM_LLAMA && c->experts > 1 ? c->experts : 0;
}

/* GPUs per node of the system o's ranks run on, on target g. */
static uint32_t plan_node_gpus(const struct model_opts *o, const struct gpu_spec *g)
{
	const struct gpu_system *s = gpu_system_for(o->system, g);
	return s ? s->gpus_per_node : 8;
}

/* Builds o's run on g into l: its memory estimate (l->peak) and, with
 * timed, its iteration (and for a served batch its prefill on its own, the
 * time to first token, and the mean step: the rest of the whole over the
 * steps).  0, or -1 with l->why set. */
static int time_run(const struct model_config *c, const struct model_cli *m, const struct gpu_spec *g,
		    struct model_opts *o, struct layout *l, int timed)
{
	struct model_seq s;
	struct model_timing t;
	struct model_memory mem;
	if (model_build(c, o, &s, l->why, sizeof(l->why)))
		return -1;
	l->mb = s.microbatches;
	model_memory(c, o, &s, &mem);
	l->peak = mem.peak;
	if (!timed) {
		model_seq_release(&s);
		return 0;
	}
	int rc = model_time(&s, o, g, model_cli_launch_ns(m), &t);
	model_seq_release(&s);
	if (rc) {
		snprintf(l->why, sizeof(l->why), "out of memory");
		return -1;
	}
	l->iteration_ns = t.iteration_ns;
	l->low_ns = t.iteration_low_ns;
	l->high_ns = t.iteration_high_ns;
	l->interval = t.interval;
	l->comm_exposed_ns = t.comm_exposed_ns;
	if (o->mode == MODEL_SERVE) {
		/* the time to first token is the batch's prefill; the steps
		 * after it are the rest of the whole (the served batch is the
		 * prefill, then its steps, one stream) */
		struct model_opts p = *o;
		p.mode = MODEL_PREFILL;
		if (model_build(c, &p, &s, l->why, sizeof(l->why)))
			return -1;
		rc = model_time(&s, &p, g, model_cli_launch_ns(m), &t);
		model_seq_release(&s);
		if (rc) {
			snprintf(l->why, sizeof(l->why), "out of memory");
			return -1;
		}
		l->ttft_ns = t.iteration_ns;
		l->ttft_low_ns = t.iteration_low_ns;
		l->ttft_high_ns = t.iteration_high_ns;
		double steps = o->new_tokens > 1 ? o->new_tokens - 1 : NAN;
		l->tpot_ns = (l->iteration_ns - l->ttft_ns) / steps;
		l->tpot_low_ns = (l->low_ns - l->ttft_low_ns) / steps;
		l->tpot_high_ns = (l->high_ns - l->ttft_high_ns) / steps;
	}
	return 0;
}

/*
 * An engine's layout over sequences of their own lengths or outputs
 * (--prompt-lens, --context-lens, one --new-tokens per sequence): the
 * sequences dealt to the o->dp replicas in turn (sequence i to replica
 * i mod dp, as a router deals requests), each replica's share built and
 * timed as a run of those sequences alone; the layout is its slowest
 * replica (its times), with the largest memory of any.  l->ok when every
 * share built.
 */
static void predict_shares(const struct model_config *c, const struct model_cli *m,
			   const struct gpu_spec *g, struct model_opts *o, struct layout *l, int timed)
{
	uint32_t n = o->batch, dp = o->dp ? o->dp : 1;
	uint32_t *lens = malloc(((size_t)n / dp + 1) * sizeof(*lens));
	uint32_t *news = malloc(((size_t)n / dp + 1) * sizeof(*news));
	if (!lens || !news) {
		free(lens);
		free(news);
		snprintf(l->why, sizeof(l->why), "out of memory");
		return;
	}
	struct layout worst = *l;
	double peak = 0;
	int bad = 0;
	for (uint32_t r = 0; r < dp && !bad; r++) {
		uint32_t k = 0;
		for (uint32_t i = r; i < n; i += dp) {
			lens[k] = m->opts.lens ? m->opts.lens[i] : m->opts.seq;
			news[k] = m->opts.new_lens ? m->opts.new_lens[i] : m->new_tokens;
			k++;
		}
		struct model_opts share = *o;
		share.batch = k;
		share.lens = m->opts.lens ? lens : NULL;
		share.nlens = m->opts.lens ? k : 0;
		share.new_lens = m->opts.new_lens ? news : NULL;
		if (share.new_lens) {   /* the most this share generates */
			share.new_tokens = 0;
			for (uint32_t j = 0; j < k; j++)
				share.new_tokens = news[j] > share.new_tokens ? news[j] : share.new_tokens;
		}
		struct layout x = *l;
		if (time_run(c, m, g, &share, &x, timed)) {
			snprintf(l->why, sizeof(l->why), "%s", x.why);
			bad = 1;
			break;
		}
		peak = x.peak > peak ? x.peak : peak;
		if (!r || x.iteration_ns > worst.iteration_ns)
			worst = x;
	}
	free(lens);
	free(news);
	if (bad)
		return;
	*l = worst;
	l->peak = peak;
	l->ok = 1;
}

/* Builds layout l on g with checkpointing ck and estimates its memory
 * (l->peak); with timed, predicts its iteration too.  ga > 1: the rank's
 * batch as ga micro-batches of batch / ga sequences, the gradients
 * accumulated over them (--grad-accum), the same work per iteration.
 * l->ok: built (and timed when asked). */
static void predict_layout_as(const struct model_config *c, const struct model_cli *m,
			      const struct gpu_spec *g, enum pred_method method, struct layout *l,
			      enum model_ckpt ck, uint32_t ga, uint32_t mb_asked, int timed)
{
	struct model_opts o = m->opts;
	if (mb_asked)
		o.microbatches = mb_asked;
	o.act_ckpt = ck;
	l->ckpt = ck;
	l->ga = ga > 1 ? ga : 0;
	l->ok = 0;
	int dealt = m->opts.engine != MODEL_ENGINE_HF && (m->opts.lens || m->opts.new_lens);
	if (dealt && o.batch < l->dp) {
		snprintf(l->why, sizeof(l->why), "%u sequences not dealt to %u replicas", o.batch, l->dp);
		return;
	}
	if (!dealt && o.batch % l->dp) {
		snprintf(l->why, sizeof(l->why), "batch %u not split over %u ranks", o.batch, l->dp);
		return;
	}
	if (!dealt)
		o.batch /= l->dp;
	o.new_tokens = m->new_tokens;   /* --mode serve: the batch's outputs */
	if (ga > 1) {
		o.batch /= ga;
		o.grad_accum = ga;
	}
	o.dp = l->dp;
	o.tp = l->tp;
	o.pp = l->pp;
	/* --vpp interleaves a pipeline's stages: a layout without one runs
	 * every layer in one chunk, as Megatron does without pipeline
	 * parallelism (not a refusal per pp = 1 row) */
	if (o.pp <= 1)
		o.vpp = 0;
	o.ep = l->ep;
	o.zero = l->zero;
	o.hsdp = l->hsdp;
	o.method = method;
	if (!o.gpus_per_node)
		o.gpus_per_node = plan_node_gpus(&o, g);
	model_place_domain(&o, g);
	if (model_offload_place(&o, g, l->why, sizeof(l->why)))
		return;
	if (o.offload && (!o.zero || (o.pp > 1 && o.zero > 1))) {
		l->hidden = 1;  /* DeepSpeed offloads ZeRO's state: not this layout */
		return;
	}
	if (l->hsdp && model_shard_ranks(&o) >= o.dp) {
		l->hidden = 1;  /* the data-parallel group fits a node */
		return;
	}
	if (o.lora_rank && !model_lora_layout(&o)) {
		l->hidden = 1;  /* the adapters are built data parallel alone */
		return;
	}
	if (o.pp > 1 && !o.microbatches) {
		/* the fewest microbatches, at least pp, that split the batch
		 * evenly (the whole batch when none does) */
		uint32_t mb = o.pp;
		while (mb < o.batch && o.batch % mb)
			mb++;
		o.microbatches = mb < o.batch ? mb : o.batch;
	}
	/* --pp-partition cost: the stage that bounds the step (a layout the
	 * split refuses is refused by the build, with its reason) */
	if (timed && model_pp_pick_stage(c, &o, g, model_cli_launch_ns(m)) == SURFER_ENOMEM) {
		snprintf(l->why, sizeof(l->why), "out of memory");
		return;
	}
	if (dealt)
		predict_shares(c, m, g, &o, l, timed);
	else if (!time_run(c, m, g, &o, l, timed))
		l->ok = 1;
}

/* Layout l on g with mb microbatches (0: --microbatches or the fewest):
 * as asked; a training layout whose memory g cannot hold, when --act-ckpt
 * was not given, again with selective and then full activation
 * checkpointing, and, without a pipeline (whose microbatches already
 * split the batch) and without --grad-accum or --microbatches, with the
 * rank's batch split into the fewest gradient-accumulation steps that fit
 * at each checkpointing level (none first): the micro-batch a user lowers
 * before turning recompute on.  Of those that fit, the fastest is kept
 * (the memory of each estimated first, only the candidates predicted);
 * when none fits, the one of least memory (full checkpointing, the most
 * accumulation): how far the layout is from fitting at best, where the
 * layout as asked (Llama-3.1-70B, 16 x 4096 on 8 H200s, dp 8 ZeRO-3: 1334
 * GiB without checkpointing, 164 with it) says only that it is far. */
static void predict_layout_mb(const struct model_config *c, const struct model_cli *m,
			      const struct gpu_spec *g, enum pred_method method, struct layout *l,
			      uint32_t mb)
{
	double have = gpu_mem_usable_bytes(g);
	int retry = !m->ckpt_set && m->opts.mode == MODEL_TRAINING && have > 0;
	predict_layout_as(c, m, g, method, l, m->opts.act_ckpt, 1, mb, !retry);
	if (!retry || !l->ok)
		return;
	if (l->peak <= have) {
		predict_layout_as(c, m, g, method, l, m->opts.act_ckpt, 1, mb, 1);
		return;
	}
	uint32_t rank_batch = l->dp && m->opts.batch % l->dp == 0 ? m->opts.batch / l->dp : 1;
	int accumulate = l->pp <= 1 && m->opts.grad_accum <= 1 && !m->opts.microbatches &&
			 rank_batch > 1;
	struct layout best = *l, least = *l;
	int found = 0;
	for (enum model_ckpt ck = m->opts.act_ckpt; ck <= MODEL_CKPT_FULL; ck++) {
		for (uint32_t ga = ck == m->opts.act_ckpt ? 2 : 1; ga <= (accumulate ? rank_batch : 1);
		     ga++) {
			if (rank_batch % ga)
				continue;
			struct layout x = *l;
			predict_layout_as(c, m, g, method, &x, ck, ga, mb, 0);
			if (x.ok && x.peak < least.peak)
				least = x;
			if (!x.ok || x.peak > have)
				continue;
			predict_layout_as(c, m, g, method, &x, ck, ga, mb, 1);
			if (x.ok && (!found || x.iteration_ns < best.iteration_ns)) {
				best = x;
				found = 1;
			}
			break;
		}
	}
	if (found) {
		*l = best;
		return;
	}
	predict_layout_as(c, m, g, method, &least, least.ckpt, least.ga, mb, 1);
	if (least.ok) {
		*l = least;
		return;
	}
	predict_layout_as(c, m, g, method, l, m->opts.act_ckpt, 1, mb, 1);
}

/* Layout l on g.  A pipeline without --microbatches is predicted twice:
 * with the fewest microbatches, at least pp, that split its rank's batch,
 * and with the fewest, at least 4 pp, that split it (up to one sequence a
 * microbatch).  More microbatches shrink the bubble, pp - 1 of M + pp - 1
 * microbatch times (under a fifth from 4 pp on), and what the first stage
 * holds, min(pp, M) microbatches of batch / M sequences, at the cost of
 * smaller GEMMs and more sends; neither wins everywhere, so the faster
 * that fits is kept, the one of less memory when neither fits.  Building
 * a step costs time in proportion to its microbatches, so M is not taken
 * further (the rank's whole batch) by default. */
static void predict_layout(const struct model_config *c, const struct model_cli *m,
			   const struct gpu_spec *g, enum pred_method method, struct layout *l)
{
	struct layout one = *l;
	uint32_t rank_batch = l->dp ? m->opts.batch / l->dp : 0;
	predict_layout_mb(c, m, g, method, l, 0);
	/* an engine's stages take the step's batch in turn, no microbatches */
	if (m->opts.engine != MODEL_ENGINE_HF)
		return;
	if (l->pp <= 1 || m->opts.microbatches || l->hidden || (l->ok && rank_batch <= l->mb) ||
	    rank_batch <= 1 || m->opts.batch % l->dp)
		return;
	uint32_t mb = 4 * l->pp;
	while (mb < rank_batch && rank_batch % mb)
		mb++;
	if (mb > rank_batch)
		mb = rank_batch;
	if (l->ok && mb <= l->mb)
		return;
	predict_layout_mb(c, m, g, method, &one, mb);
	if (!one.ok)
		return;
	double have = gpu_mem_usable_bytes(g);
	int fits_l = l->ok && (!(have > 0) || l->peak <= have);
	int fits_one = !(have > 0) || one.peak <= have;
	if (!l->ok || fits_one > fits_l ||
	    (fits_one == fits_l && (fits_one ? one.iteration_ns < l->iteration_ns : one.peak < l->peak)))
		*l = one;
}

/* The memory the system can give without swapping, GB: Linux's
 * MemAvailable (free pages and the reclaimable page cache), else the free
 * pages; 0 unknown. */
static double plan_available_gb(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	double kb = 0;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	if (kb > 0)
		return kb * 1024 / 1e9;
	long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	return pages > 0 && page > 0 ? (double)pages * (double)page / 1e9 : 0;
}

uint32_t model_plan_jobs(const struct model_cli *m)
{
	if (m && m->jobs)
		return m->jobs;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint32_t jobs = cpus < 1 ? 1 : cpus > 16 ? 16 : (uint32_t)cpus;
	/* a layout of DeepSeek-V3 on 1024 GPUs holds about 0.6 GB while it is
	 * timed (1.23 GB peak at --jobs 2): one job per GB available */
	double gb = plan_available_gb();
	if (gb > 0 && gb < jobs)
		jobs = gb < 1 ? 1 : (uint32_t)gb;
	return jobs;
}

/* The layouts one target's threads share: each takes the next index. */
struct plan_pool {
	const struct model_config *c;
	const struct model_cli *m;
	const struct gpu_spec *g;
	enum pred_method method;
	struct layout *v;
	size_t n;
	atomic_size_t next, done;
	pthread_t drawer;             /* the one thread that draws the bar   */
	struct progress *bar;         /* NULL none                           */
	size_t bar_before, bar_total; /* layouts of the targets before, all  */
};

static void *plan_worker(void *arg)
{
	struct plan_pool *P = arg;
	size_t i;
	while ((i = atomic_fetch_add(&P->next, 1)) < P->n) {
		predict_layout(P->c, P->m, P->g, P->method, &P->v[i]);
		size_t d = atomic_fetch_add(&P->done, 1) + 1;
		if (P->bar && pthread_equal(pthread_self(), P->drawer))
			progress_draw(P->bar, P->bar_before + d, P->bar_total);
	}
	model_thread_cache_drop();
	return NULL;
}

/* predict_layout() of v[0 .. n) on g, jobs at once: the calling thread
 * and up to jobs - 1 started here (fewer when the system refuses a
 * thread: the ones running take its share).  The calling thread draws
 * bar (NULL none) at before + layouts done of total. */
static void predict_layouts(const struct model_config *c, const struct model_cli *m,
			    const struct gpu_spec *g, enum pred_method method, struct layout *v, size_t n,
			    size_t jobs, struct progress *bar, size_t before, size_t total)
{
	struct plan_pool P = { .c = c, .m = m, .g = g, .method = method, .v = v, .n = n,
			       .drawer = pthread_self(), .bar = bar, .bar_before = before,
			       .bar_total = total };
	pthread_t th[MODEL_PLAN_MAX_JOBS];
	size_t started = 0;
	atomic_init(&P.next, 0);
	atomic_init(&P.done, 0);
	if (jobs > n)
		jobs = n;
	while (started + 1 < jobs && !pthread_create(&th[started], NULL, plan_worker, &P))
		started++;
	plan_worker(&P);
	for (size_t k = 0; k < started; k++)
		pthread_join(th[k], NULL);
	if (bar)   /* the last layouts may have been another thread's */
		progress_draw(bar, before + n, total);
}

/* The tokens of a list of lengths, all of them. */
static double lens_sum(const struct model_opts *o)
{
	double sum = 0;
	for (uint32_t i = 0; i < o->nlens; i++)
		sum += o->lens[i];
	return sum;
}

/* The sequences' length: --seq, or the longest of a list. */
static uint32_t plan_seq(const struct model_cli *m)
{
	uint32_t mx = m->opts.lens ? 0 : m->opts.seq;
	for (uint32_t i = 0; m->opts.lens && i < m->opts.nlens; i++)
		mx = m->opts.lens[i] > mx ? m->opts.lens[i] : mx;
	return mx;
}

#define MAX_LAYOUTS 2048
#define GIB 1073741824.0

/* USD per million tokens of a layout of m->plan_gpus GPUs at usd_per_hour
 * each: the hour's price of all of them over the tokens of an hour. */
static double usd_per_mtok(const struct model_cli *m, const struct layout *l, double usd_per_hour)
{
	double tok_per_s = model_cli_tokens(m) / (l->iteration_ns / 1e9);
	return usd_per_hour * m->plan_gpus / 3600.0 / tok_per_s * 1e6;
}

/* The activation checkpointing the plan chose for l ("selective" or
 * "full"), NULL where it chose none (none needed, or --act-ckpt given):
 * what the table, the JSON and --rank name beside a layout */
static const char *plan_ckpt_chosen(const struct model_cli *m, const struct layout *l)
{
	if (m->ckpt_set || l->ckpt == MODEL_CKPT_NONE)
		return NULL;
	return l->ckpt == MODEL_CKPT_FULL ? "full" : "selective";
}

/* Whether v[i], a layout that does not build, is the first of v whose
 * reason it shares; *alike, how many share it (itself too). */
static int first_alike(const struct layout *v, size_t n, size_t i, size_t *alike)
{
	*alike = 0;
	for (size_t j = 0; j < n; j++) {
		if (v[j].hidden || v[j].ok || strcmp(v[j].why, v[i].why))
			continue;
		if (j < i)
			return 0;
		(*alike)++;
	}
	return 1;
}

/* One layout in words, as --rank and a plan that fits nowhere name it:
 * "dp 8 x tp 1 x pp 1, zero 3, act-ckpt selective, grad-accum 2" (ep,
 * the ZeRO stage where the plan chose it, hsdp, microbatches, the
 * checkpointing and accumulation the plan chose, each when there is one). */
static void layout_words(const struct model_cli *m, const struct layout *l, char *out, size_t len)
{
	int k = snprintf(out, len, "dp %u x tp %u x pp %u", l->dp, l->tp, l->pp);
	const char *ck = plan_ckpt_chosen(m, l);
#define MORE(...) \
	do { \
		if (k >= 0 && (size_t)k < len) \
			k += snprintf(out + k, len - (size_t)k, __VA_ARGS__); \
	} while (0)
	if (l->ep > 1)
		MORE(", ep %u", l->ep);
	if (!m->zero_set && m->opts.mode == MODEL_TRAINING)
		MORE(", zero %u", l->zero);
	if (l->hsdp)
		MORE(" (hsdp)");
	if (l->mb > 1)
		MORE(", %u microbatches", l->mb);
	if (ck)
		MORE(", act-ckpt %s", ck);
	if (l->ga > 1)
		MORE(", grad-accum %u", l->ga);
#undef MORE
}

static int write_text(FILE *f, const struct model_cli *m, const struct gpu_spec *g,
		      const struct layout *v, size_t n, double usd_per_hour, int moe, int zeros)
{
	double have = gpu_mem_usable_bytes(g);
	int best = 0, built = 0;
	fprintf(f, "\ntarget     %s (%s), %.2f GiB usable per GPU", g->id, g->name, have / GIB);
	if (m->opts.power_limit_w > 0)
		fprintf(f, ", capped at %.0f W", m->opts.power_limit_w);
	if (usd_per_hour > 0)
		fprintf(f, ", $%.2f/hour per GPU", usd_per_hour);
	const struct gpu_system *sys = gpu_system_for(m->opts.system, g);
	if (sys) {
		char d[200];
		report_system(sys, d, sizeof(d));
		fprintf(f, "\nsystem     %s", d);
	}
	double p = 0;
	for (size_t i = 0; i < n && !(p > 0); i++)
		p = v[i].ok ? v[i].interval : 0;
	char range[32];
	snprintf(range, sizeof range, "%.0f%% interval", p * 100);
	fprintf(f, "\n  %4s %4s %4s", "dp", "tp", "pp");
	if (moe)
		fprintf(f, " %4s", "ep");
	if (zeros)
		fprintf(f, " %4s", "zero");
	int serve = m->opts.mode == MODEL_SERVE;
	fprintf(f, " %4s %12s %17s", "mb", serve ? "batch ms" : "iteration ms", range);
	if (serve)
		fprintf(f, " %10s %10s", "TTFT ms", "TPOT ms");
	fprintf(f, " %12s %10s %10s", "tokens/s", "comm ms", "memory GiB");
	if (usd_per_hour > 0)
		fprintf(f, " %12s", "$/M tokens");
	fputc('\n', f);
	for (size_t i = 0; i < n; i++) {
		const struct layout *l = &v[i];
		/* layouts that do not build for one reason (a TP degree that
		 * splits the KV heads, under every dp, pp and ZeRO stage: 150
		 * rows of Llama-3.1-405B's plan of 1024 GPUs) are one row, the
		 * first of them, with their count; JSON lists each */
		size_t alike = 0;
		if (l->hidden || (!l->ok && !first_alike(v, n, i, &alike)))
			continue;
		fprintf(f, "  %4u %4u %4u", l->dp, l->tp, l->pp);
		if (moe)
			fprintf(f, " %4u", l->ep);
		if (zeros)
			fprintf(f, " %4u", l->zero);
		if (!l->ok) {
			if (alike > 1)
				fprintf(f, " %4s  %s (%zu layouts)\n", "-", l->why, alike);
			else
				fprintf(f, " %4s  %s%s\n", "-", l->why, l->hsdp ? " (hsdp)" : "");
			continue;
		}
		built = 1;
		char iv[84];
		report_interval(l->low_ns / 1e6, l->high_ns / 1e6, iv, sizeof iv);
		fprintf(f, " %4u %12.3f %17s", l->mb ? l->mb : 1, l->iteration_ns / 1e6, iv);
		if (serve && isnan(l->tpot_ns))
			fprintf(f, " %10.3f %10s", l->ttft_ns / 1e6, "none");
		else if (serve)
			fprintf(f, " %10.3f %10.3f", l->ttft_ns / 1e6, l->tpot_ns / 1e6);
		fprintf(f, " %12.0f %10.3f %10.2f", model_cli_tokens(m) / (l->iteration_ns / 1e9),
			l->comm_exposed_ns / 1e6, l->peak / GIB);
		if (usd_per_hour > 0) {
			char usd[32];
			report_usd(usd_per_mtok(m, l, usd_per_hour), usd, sizeof(usd));
			fprintf(f, " %12s", usd);
		}
		const char *chosen = plan_ckpt_chosen(m, l);
		char ac[32] = "";
		if (chosen)
			snprintf(ac, sizeof ac, "act-ckpt %s", chosen);
		const char *note = !l->fits ? "  does not fit" : !best ? "  fastest that fits" : "";
		char gas[32] = "";
		if (l->ga > 1)
			snprintf(gas, sizeof gas, "grad-accum %u", l->ga);
		fprintf(f, "%s%s%s%s%s%s\n", l->hsdp ? "  hsdp" : "", note,
			ac[0] ? (note[0] || l->hsdp ? ", " : "  ") : "", ac,
			gas[0] ? (note[0] || l->hsdp || ac[0] ? ", " : "  ") : "", gas);
		if (l->fits)
			best = 1;
	}
	if (!built)
		fprintf(f, "  no layout of %u GPUs runs this batch\n", m->plan_gpus);
	else if (!best) {
		/* how far the nearest layout is: what a user weighs against
		 * more GPUs, --precision pure or --offload */
		const struct layout *least = NULL;
		for (size_t i = 0; i < n; i++)
			if (!v[i].hidden && v[i].ok && (!least || v[i].peak < least->peak))
				least = &v[i];
		fprintf(f, "  no layout of %u GPUs fits %s's memory", m->plan_gpus, g->id);
		if (least) {
			char words[160];
			layout_words(m, least, words, sizeof words);
			fprintf(f, ";\n  the least memory: %.2f GiB a GPU (%s)", least->peak / GIB, words);
		}
		fputc('\n', f);
	}
	return ferror(f) ? -1 : 0;
}

static json_t *layouts_json(const struct model_cli *m, const struct layout *v, size_t n,
			    double usd_per_hour)
{
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < n; i++) {
		const struct layout *l = &v[i];
		if (l->hidden)
			continue;
		json_t *o = json_pack("{s:i, s:i, s:i}", "dp", (json_int_t)l->dp, "tp", (json_int_t)l->tp,
				      "pp", (json_int_t)l->pp);
		if (o && l->hsdp)
			json_object_set_new(o, "hsdp", json_true());
		if (o && l->ep > 1)
			json_object_set_new(o, "ep", json_integer(l->ep));
		if (o && !m->zero_set && m->opts.mode == MODEL_TRAINING)
			json_object_set_new(o, "zero", json_integer(l->zero));
		if (o && l->ok)
			json_object_update_new(o, json_pack("{s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:b}",
				"microbatches", (json_int_t)(l->mb ? l->mb : 1),
				"iteration_ms", l->iteration_ns / 1e6,
				"iteration_ms_low", l->low_ns / 1e6, "iteration_ms_high", l->high_ns / 1e6,
				"tokens_per_s", model_cli_tokens(m) / (l->iteration_ns / 1e9),
				"comm_exposed_ms", l->comm_exposed_ns / 1e6, "memory_peak_gib", l->peak / GIB,
				"memory_fits", l->fits));
		else if (o)
			json_object_set_new(o, "skipped", json_string(l->why));
		if (o && l->ok && m->opts.mode == MODEL_SERVE) {
			json_object_set_new(o, "ttft_ms", json_real(l->ttft_ns / 1e6));
			json_object_set_new(o, "ttft_ms_low", json_real(l->ttft_low_ns / 1e6));
			json_object_set_new(o, "ttft_ms_high", json_real(l->ttft_high_ns / 1e6));
			json_object_set_new(o, "tpot_mean_ms", isnan(l->tpot_ns) ? json_null()
							       : json_real(l->tpot_ns / 1e6));
			json_object_set_new(o, "tpot_mean_ms_low", isnan(l->tpot_low_ns) ? json_null()
								   : json_real(l->tpot_low_ns / 1e6));
			json_object_set_new(o, "tpot_mean_ms_high", isnan(l->tpot_high_ns) ? json_null()
								    : json_real(l->tpot_high_ns / 1e6));
		}
		if (o && l->ok && l->ga > 1)
			json_object_set_new(o, "grad_accum", json_integer(l->ga));
		if (o && l->ok && plan_ckpt_chosen(m, l))
			json_object_set_new(o, "act_ckpt", json_string(plan_ckpt_chosen(m, l)));
		if (o && l->ok && usd_per_hour > 0)
			json_object_set_new(o, "cost_per_million_tokens_usd",
					    json_real(usd_per_mtok(m, l, usd_per_hour)));
		if (!o || json_array_append_new(arr, o)) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

/* --plan with --rank: a target's best layout, the first of its sorted
 * table (the fastest that fits, else the fastest built; within a target,
 * whose N GPUs cost the same an hour, the cheapest too) */
struct plan_best {
	const struct gpu_spec *g;
	struct layout l;
	int built;              /* some layout built (else l is unset)        */
	double usd_per_hour;    /* the target's price, 0 none                 */
};

static struct plan_best plan_best_of(const struct gpu_spec *g, const struct layout *v, size_t n,
				     double usd_per_hour)
{
	struct plan_best b = { .g = g, .usd_per_hour = usd_per_hour };
	for (size_t i = 0; i < n && !b.built; i++)
		if (!v[i].hidden && v[i].ok) {
			b.l = v[i];
			b.built = 1;
		}
	return b;
}

/* The key targets are ranked by: the best layout's time, or its cost per
 * million tokens (INFINITY unpriced, so that those come last, by time) */
static double plan_rank_key(const struct model_cli *m, const struct plan_best *b, int by_cost)
{
	if (!by_cost)
		return b->l.iteration_ns;
	return b->usd_per_hour > 0 ? usd_per_mtok(m, &b->l, b->usd_per_hour) : INFINITY;
}

/* Whether a ranks before b: a layout that fits before one that does not,
 * one that builds before none; then the key, ties by time */
static int plan_rank_before(const struct model_cli *m, const struct plan_best *a,
			    const struct plan_best *b, int by_cost)
{
	if (a->built != b->built)
		return a->built;
	if (!a->built)
		return 0;
	if (a->l.fits != b->l.fits)
		return a->l.fits;
	double ka = plan_rank_key(m, a, by_cost), kb = plan_rank_key(m, b, by_cost);
	return ka < kb || (ka == kb && a->l.iteration_ns < b->l.iteration_ns);
}

/* One line per target, as report_rank() writes a trace's: its best
 * layout's time, the layout, its cost; "no fit" when none of its layouts
 * fits the target's memory (the fastest built then), "no layout runs"
 * when none builds.  Stable: equal keys keep the targets' order. */
static int write_rank(FILE *f, const struct model_cli *m, struct plan_best *b, size_t n, int by_cost)
{
	for (size_t i = 1; i < n; i++) {
		struct plan_best x = b[i];
		size_t j = i;
		for (; j > 0 && plan_rank_before(m, &x, &b[j - 1], by_cost); j--)
			b[j] = b[j - 1];
		b[j] = x;
	}
	for (size_t i = 0; i < n; i++) {
		const struct layout *l = &b[i].l;
		if (!b[i].built) {
			fprintf(f, "%-24s %15s  no layout runs\n", b[i].g->id, "-");
			continue;
		}
		char words[160];
		layout_words(m, l, words, sizeof words);
		fprintf(f, "%-24s %12.3f ms  %s", b[i].g->id, l->iteration_ns / 1e6, words);
		if (m->opts.mode == MODEL_SERVE) {
			fprintf(f, "  TTFT %.3f ms", l->ttft_ns / 1e6);
			if (!isnan(l->tpot_ns))
				fprintf(f, ", TPOT %.3f ms", l->tpot_ns / 1e6);
		}
		if (b[i].usd_per_hour > 0) {
			char usd[32];
			report_usd(usd_per_mtok(m, l, b[i].usd_per_hour), usd, sizeof(usd));
			fprintf(f, "  $%s per million tokens", usd);
		} else if (by_cost) {
			fprintf(f, "  no price");
		}
		if (!l->fits)
			fprintf(f, "  no fit");
		fputc('\n', f);
	}
	return ferror(f) ? -1 : 0;
}

/* Whether layout l failed because the batch does not split over its
 * data-parallel ranks (or its sequences over its replicas) rather than
 * because the layout does not build. */
static int failed_on_split(const struct layout *l)
{
	return !strncmp(l->why, "batch ", 6) || strstr(l->why, " not dealt to ");
}

/* When no layout of v builds: the refusal in err, 1; else 0.  The reason
 * is a build's over a batch's split (an engine asked to train fails every
 * layout alike); where both stand in the way, the line says how many
 * layouts each stopped, so that a batch too small for the GPUs and a model
 * too small for the model-parallel degrees left are both seen (Llama 3.1
 * 405B on 1024 GPUs at batch 1: tp 8 x pp 128 passes its 126 layers). */
static int plan_refusal(const struct layout *v, size_t n, const struct model_cli *m, char *err,
			size_t errlen)
{
	size_t split = 0, other = 0, reasons = 0, alike;
	uint32_t fewest = 0;
	const char *why = NULL, *split_why = NULL;
	for (size_t i = 0; i < n; i++) {
		if (v[i].ok && !v[i].hidden)
			return 0;
		if (v[i].ok || v[i].hidden)
			continue;
		if (failed_on_split(&v[i])) {
			split++;
			if (!fewest || v[i].dp < fewest)
				fewest = v[i].dp, split_why = v[i].why;
			continue;
		}
		other++;
		reasons += first_alike(v, n, i, &alike);
		if (!why)
			why = v[i].why;
	}
	if (!why && !split_why)
		return 0;
	if (!why || !split)
		snprintf(err, errlen, "--plan %u: no layout builds: %s", m->plan_gpus, why ? why : split_why);
	else if (reasons == 1)
		snprintf(err, errlen, "--plan %u: no layout builds: %s, nor over the ranks of %zu more "
			 "layouts; the other %zu fail%s on one reason: %s", m->plan_gpus, split_why,
			 split - 1, other, other == 1 ? "s" : "", why);
	else
		snprintf(err, errlen, "--plan %u: no layout builds: %s, nor over the ranks of %zu more "
			 "layouts; the other %zu fail on %zu reasons, the first: %s", m->plan_gpus,
			 split_why, split - 1, other, reasons, why);
	return 1;
}

int model_plan_write(FILE *f, const struct model_cli *m, const struct gpu_spec *const *targets,
		     size_t ntargets, const double *usd_per_hour, enum pred_method method, int json,
		     char *err, size_t errlen)
{
	struct model_config c;
	if (!m->model) {
		snprintf(err, errlen, "--plan needs --model CONFIG.json|NAME");
		return SURFER_EINVAL;
	}
	if (model_config_resolve(m->model, &c, err, errlen))
		return SURFER_EINVAL;
	struct model_cli served = *m;
	struct model_defaults defaults;
	model_cli_defaults(&served, &c, targets, ntargets, &defaults);
	m = &served;
	for (size_t i = 0; i < ntargets; i++)
		if (model_target_check(&m->opts, targets[i], err, errlen))
			return SURFER_EINVAL;
	/* a plan refuses what the run refuses; it prints no warning */
	if (model_positions_check(&c, m, NULL, 0, err, errlen))
		return SURFER_EINVAL;
	if (m->opts.mode == MODEL_GENERATE) {
		snprintf(err, errlen, "--plan takes --mode inference, training or decode (with an engine "
			 "prefill, decode or serve)");
		return SURFER_EINVAL;
	}
	if (model_cli_check_modes(m, err, errlen))
		return SURFER_EINVAL;
	/* an engine's layouts deal a list of lengths to their replicas
	 * (predict_shares()); transformers' runs take none */
	if (m->lens_kind && m->opts.engine == MODEL_ENGINE_HF) {
		snprintf(err, errlen, "--plan splits --batch B sequences of --seq S over each layout's "
			 "replicas: give those, not --%s", m->lens_kind == 1 ? "prompt-lens" : "context-lens");
		return SURFER_EINVAL;
	}
	if (m->opts.dp * m->opts.tp * m->opts.pp * model_ep(&m->opts) > 1 || m->opts.nodes ||
	    m->opts.hsdp) {
		snprintf(err, errlen, "--plan tries every --dp, --tp, --pp, --ep and --hsdp on N GPUs "
			 "itself; give none of them, nor --nodes");
		return SURFER_EINVAL;
	}
	if (m->opts.zero && m->opts.mode != MODEL_TRAINING) {
		snprintf(err, errlen, "--zero shards the training state: it needs --mode training");
		return SURFER_EINVAL;
	}
	if (method == PRED_WAVE) {
		snprintf(err, errlen, "--method wave needs a measured trace; use auto, mlp, roofline, "
			 "tcgemm or vecop with --model");
		return SURFER_EINVAL;
	}
	/* --cp N splits every sequence over N ranks: the layouts spread the
	 * other degrees over the N-th of the GPUs left */
	uint32_t cp = model_cp(&m->opts), groups = m->plan_gpus / cp;
	if (m->plan_gpus % cp) {
		snprintf(err, errlen, "--plan %u --cp %u: the context-parallel degree must divide the GPUs",
			 m->plan_gpus, cp);
		return SURFER_EINVAL;
	}
	struct layout *v = malloc(MAX_LAYOUTS * sizeof(*v));
	struct plan_best *best = calloc(ntargets ? ntargets : 1, sizeof(*best));
	if (!v || !best) {
		free(v);
		free(best);
		snprintf(err, errlen, "out of memory");
		return SURFER_ENOMEM;
	}
	/* FSDP2 (torchtitan's) runs under a pipeline and with --ep; FSDP1
	 * and Megatron's FSDP do neither (model.c) */
	int fsdp2 = m->opts.stack != MODEL_STACK_TE && m->opts.fsdp != MODEL_FSDP_1 &&
		    m->opts.fsdp != MODEL_FSDP_MEGATRON;
	uint32_t experts = m->opts.zero >= 2 && !fsdp2 ? 0 : plan_experts(&c);
	/* training without --zero: each layout as DDP, ZeRO-1 and FSDP */
	static const uint32_t explored[] = { 0, 1, 3 };
	int explore = !m->zero_set && m->opts.mode == MODEL_TRAINING;
	const uint32_t *zeros = explore ? explored : &m->opts.zero;
	size_t nzeros = explore ? sizeof(explored) / sizeof(explored[0]) : 1;
	size_t n = layouts_of(groups, zeros, nzeros, explore, fsdp2, experts, v, MAX_LAYOUTS);
	/* a plan of many layouts takes minutes (DeepSeek-V3 on 1024 GPUs:
	 * 103 s on two cores): a bar on a terminal meanwhile, wiped before
	 * each target's table */
	struct progress bar;
	progress_start(&bar, "surfer-analyze", "--plan", 0);
	size_t jobs = model_plan_jobs(m);
	/* the first target's layouts before anything is written: a plan no
	 * layout of which builds (an engine asked to train, say) is bad
	 * input, refused with its reasons (plan_refusal()) */
	if (ntargets)
		predict_layouts(&c, m, targets[0], method, v, n, jobs, &bar, 0, n * ntargets);
	progress_end(&bar);
	if (ntargets && plan_refusal(v, n, m, err, errlen)) {
		free(v);
		free(best);
		return SURFER_EINVAL;
	}
	json_t *doc = NULL, *tarr = NULL;
	int engine = m->opts.engine != MODEL_ENGINE_HF;
	const char *mode = model_mode_name(m->opts.mode, engine);
	if (json) {
		doc = json_pack("{s:i, s:s, s:s, s:s, s:i, s:i, s:i, s:i}", "schema_version",
				(json_int_t)REPORT_SCHEMA_VERSION, "model", c.name, "engine",
				model_engine_name(m->opts.engine), "mode", mode,
				"gpus", (json_int_t)m->plan_gpus, "global_batch", (json_int_t)m->opts.batch,
				"seq", (json_int_t)plan_seq(m), "zero", (json_int_t)m->opts.zero);
		if (doc && m->opts.mode == MODEL_TRAINING && m->opts.grad_accum > 1)
			json_object_set_new(doc, "grad_accum", json_integer(m->opts.grad_accum));
		if (doc && m->opts.mode == MODEL_SERVE)
			json_object_set_new(doc, "new_tokens", json_integer(m->new_tokens));
		if (doc && defaults.attn)   /* chosen, not given: model_cli_defaults() */
			json_object_set_new(doc, "attention", json_string(model_attention_name(m->opts.attention)));
		if (doc && defaults.qlora_ckpt)
			json_object_set_new(doc, "act_ckpt", json_string("full"));
		tarr = json_array();
		if (!doc || !tarr || json_object_set(doc, "targets", tarr)) {
			json_decref(doc);
			json_decref(tarr);
			free(v);
			free(best);
			snprintf(err, errlen, "out of memory");
			return SURFER_ENOMEM;
		}
	} else if (!m->plan_rank) {
		char zero[64] = "";
		if (explore) {
			/* one GPU has no data-parallel ranks to shard over */
			char lora[32] = "";
			if (m->opts.lora_rank)
				snprintf(lora, sizeof(lora), ", LoRA rank %u", m->opts.lora_rank);
			snprintf(zero, sizeof(zero), "%s%s", lora, m->plan_gpus > 1 ? ", zero 0, 1 and 3" : "");
		} else if (m->opts.zero) {
			snprintf(zero, sizeof(zero), ", zero %u", m->opts.zero);
		}
		char cps[24] = "";
		if (cp > 1)
			snprintf(cps, sizeof(cps), " x cp %u", cp);
		/* with --grad-accum N each micro-step splits --batch, the
		 * step N times that (tokens/s counts them all) */
		char gas[48] = "";
		if (m->opts.mode == MODEL_TRAINING && m->opts.grad_accum > 1)
			snprintf(gas, sizeof(gas), " x %u accumulation steps", m->opts.grad_accum);
		else if (m->opts.mode == MODEL_SERVE && m->opts.new_lens)
			snprintf(gas, sizeof(gas), " + up to %u new tokens (%.0f in all)", m->new_tokens,
				 model_cli_tokens(m));
		else if (m->opts.mode == MODEL_SERVE)
			snprintf(gas, sizeof(gas), " + %u new tokens", m->new_tokens);
		char of[64];
		if (m->opts.lens) {
			snprintf(of, sizeof(of), "up to %u tokens (%.0f in all)", plan_seq(m),
				 lens_sum(&m->opts));
		} else {
			snprintf(of, sizeof(of), "%u", m->opts.seq);
		}
		char chosen[96];   /* what the run chose for the flags not given */
		model_defaults_words(&defaults, chosen, sizeof(chosen));
		fprintf(f, "plan       %s%s%s, %s, %u sequence%s of %s%s over %u GPU%s, %s%s%s (dp x tp x pp%s "
			"= %u; fitting first, fastest first)\n", engine ? model_engine_name(m->opts.engine) : "",
			engine ? " " : "", c.name, mode, m->opts.batch, m->opts.batch == 1 ? "" : "s", of, gas,
			m->plan_gpus, m->plan_gpus == 1 ? "" : "s", model_dtype_label(&m->opts),
			chosen, zero, cps, m->plan_gpus);
	}
	int rc = 0;
	for (size_t t = 0; t < ntargets && !rc; t++) {
		if (t) {   /* the first's are done */
			predict_layouts(&c, m, targets[t], method, v, n, jobs, &bar, t * n, n * ntargets);
			progress_end(&bar);
		}
		double have = gpu_mem_usable_bytes(targets[t]);
		for (size_t i = 0; i < n; i++)
			v[i].fits = !(have > 0) || v[i].peak <= have;
		qsort(v, n, sizeof(*v), cmp_layout);
		double usd = usd_per_hour ? usd_per_hour[t] : 0;
		if (json) {
			json_t *o = json_pack("{s:s, s:f, s:o}", "target", targets[t]->id, "memory_usable_gib",
					      gpu_mem_usable_bytes(targets[t]) / GIB, "layouts",
					      layouts_json(m, v, n, usd));
			if (o && usd > 0)
				json_object_set_new(o, "price_usd_per_hour", json_real(usd));
			if (o && m->opts.power_limit_w > 0)
				json_object_set_new(o, "power_limit_w", json_real(m->opts.power_limit_w));
			const struct gpu_system *sys = gpu_system_for(m->opts.system, targets[t]);
			if (o && sys && json_object_set_new(o, "system", report_system_json(sys)))
				rc = -1;
			if (!o || json_array_append_new(tarr, o))
				rc = -1;
		} else if (m->plan_rank) {
			best[t] = plan_best_of(targets[t], v, n, usd);
		} else if (write_text(f, m, targets[t], v, n, usd, plan_experts(&c) > 0, explore)) {
			rc = -1;
		}
		/* the next target starts from the same order of layouts */
		n = layouts_of(groups, zeros, nzeros, explore, fsdp2, experts, v, MAX_LAYOUTS);
	}
	if (json && !rc) {
		rc = json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
		if (!rc)
			fputc('\n', f);
	}
	if (!json && m->plan_rank && !rc)
		rc = write_rank(f, m, best, ntargets, m->plan_rank == 2);
	free(best);
	json_decref(tarr);
	json_decref(doc);
	free(v);
	if (rc || ferror(f)) {
		snprintf(err, errlen, "cannot write the plan");
		return SURFER_EWRITE;
	}
	return 0;
}
