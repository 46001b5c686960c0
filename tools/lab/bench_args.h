/*
 * bench_args.h - the options of every surfer-bench subcommand.  One
 * getopt_long table in tools/lab/bench.c parses them, and its command table
 * says which options each subcommand takes; a subcommand only reads the
 * fields of those.  Values stay the strings given: each subcommand checks
 * and converts its own, with its own messages.
 */
#ifndef SURFER_BENCH_ARGS_H
#define SURFER_BENCH_ARGS_H

struct bench_args {
	int help;                   /* -h, --help: print the usage, exit 0     */
	const char *data;           /* --data DIR: the shared data folder      */
	const char *labels;         /* --labels DIR: NeuSight's labels         */
	const char *configs;        /* --configs DIR: model configs            */
	const char *gpu;            /* --gpu GPU: only this GPU                */
	const char *weights;        /* --weights FILE: tile-model weights      */
	const char *holdout;        /* --holdout-weights DIR: w_<GPU>.bin      */
	const char *dump;           /* --dump FILE.csv                         */
	const char *dataset;        /* --dataset PATH (accuracy)               */
	const char *origin;         /* --origin GPU|none (accuracy; conv: GPU) */
	const char *target;         /* --target GPU (accuracy)                 */
	const char *op;             /* --op OP (accuracy)                      */
	const char *method;         /* --method M|all (accuracy)               */
	const char *format;         /* --format F: the dataset's layout (accuracy) */
	const char *attention;      /* --attention eager|sdpa (e2e)            */
	const char *launch_us;      /* --launch-us US (e2e)                    */
	const char *min_ms;         /* --min-ms MS (profile)                   */
	const char *min_bytes;      /* --min-bytes N (comm)                    */
	const char *interval;       /* --interval P (calibrate)                */
	const char *shrink;         /* --shrink GEMM,VECTOR (accuracy)         */
	const char *gemm_data;      /* --gemm-data DIR|none (serving)          */
	const char *compiled;       /* --compiled gemm,comm,attn,vec (serving) */
	const char *weigh;          /* --weigh rows|groups (calibrate)         */
	const char *dtype;          /* --dtype fp32|tf32|bf16|fp16 (e2e)       */
	const char *heldout_rowwise; /* --heldout-rowwise DIR (accuracy): NeuSight's
				     * test shapes the row-wise model is fitted on,
				     * the target's architecture left out     */
	const char *own;            /* --own DIR|none: the folder of our own
				     * measurements the tensor-core fits read too */
	int emit;                   /* --emit: print fitted constants as C     */
	int emit_picks;             /* --emit-picks (conv): print a GPU's pick
				     * table and its kinds' constants as C     */
	int rows;                   /* --rows (profile, serving)               */
	int json;                   /* --json (accuracy)                       */
	int as_recorded;            /* --as-recorded (accuracy)                */
	int heldout_conv;           /* --heldout-conv (accuracy)               */
	int per_dtype;              /* --per-dtype (tensorcore)                */
	int no_power;               /* --no-power (tensorcore)                 */
	int no_figures;             /* --no-figures (tensorcore)               */
	int max_form;               /* --max-form (tensorcore)                 */
	int mamf;                   /* --mamf (tensorcore)                     */
	int compiled_amd_scale;     /* --compiled-amd-scale (e2e)              */
	int with_figures;           /* --with-figures (e2e; accuracy's default) */
	int hold_out_figures;       /* --hold-out-figures (accuracy)           */
	int no_host_floor;          /* --no-host-floor (accuracy)              */
	int before;                 /* --before (published)                    */
	int noperands;              /* the arguments that are not options      */
	char **operands;
};

#endif
