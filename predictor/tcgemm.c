/*
 * tcgemm.c - the tensor-core GEMM model and its fitting.
 *
 * A tensor-core GEMM C[m x n] = A[m x k] B[k x n] (batch times) is cut into
 * output tiles of T x Tn (128 x 128, 128 x 256 on Hopper: tcgemm.h), one
 * per thread block, and the blocks run in waves over the SMs.  Its time on
 * GPU g is
 *
 *   T = (t_c^q + t_m^q)^(1/q) + overhead,
 *   t_c = F / (P_dt * eff),  t_m = bytes / (BW * bw_eff)
 *   eff = eff_dt * mamf * e_wave^wave_pow * e_pad^pad_pow * k / (k + k0)
 *
 * with F = 2 m n k batch, P_dt the dense tensor peak of the dtype, BW the
 * achievable DRAM bandwidth from kernel-level sources (below), q fitted
 * (mem_pow; the max of the two for q 0), and
 *  - e_wave = tiles / (ceil(tiles / SMs) * SMs): wave quantization, the
 *    fraction of SM-slots a ragged last wave keeps busy (the same argument
 *    as Habitat's ceil(B/W) term; one tile per SM at a time, as the large
 *    tensor-core tiles use most of an SM's shared memory);
 *  - e_pad = m n / (ceil(m/T) T * ceil(n/Tn) Tn): the work wasted in partly
 *    filled edge tiles (libraries pick smaller tiles for skinny shapes,
 *    hence a fitted exponent rather than 1);
 *  - k / (k + k0): each tile pays a fixed prologue (pipeline fill) and
 *    epilogue (accumulator write-out) worth k0 steps of its K loop, which a
 *    short K cannot amortize;
 *  - mamf: the share of the dense peak the GPU reaches in its best large
 *    BF16 matmul, where a public measurement gives one (gpu_specs/figures.h:
 *    ml-engineering's MAMF table, A100 SXM 0.869, A100 PCIe 0.811, H100
 *    SXM and H200 0.803, GH200 0.838, B200 0.776, GB200 0.729; a board of a
 *    measured die, the H800, takes its die's), else the rule below; an
 *    FP8 GEMM takes the FP8 figure where the GPU or its die has one (H100
 *    SXM 0.709, H200 0.734, GH200 0.776, B200 0.763, GB200 0.723: below
 *    the BF16 figure on every part), else the same share as BF16;
 *  - eff_dt: the share of that a huge GEMM of the data reaches, per dtype
 *    (0.89: the GEMMs measured here ran older libraries than the MAMF
 *    search, and no search picked their shapes).
 * The rule, for a GPU with no figure:
 *
 *   mamf = min(b c, mamf_1024 * (w / 1024)^-rate_pow * min(power, b c))
 *   power = ((W / P_fp16) * (w / 1024)^power_rate_pow / power_w_ref)^power_pow
 *
 * with b the boost clock over the clock the dense tensor peak is quoted at
 * (1 where the datasheet quotes the boost clock; Hopper's 1830-1853 MHz
 * against 1980, tc_log_boost()), c the clock the board holds under a long
 * all-SM load over its boost clock where it was measured (figures.h's
 * fma_clock, on the GPU or a board of its die at the same board power: the
 * L40 and RTX 6000 Ada 1740 of 2490 MHz at 300 W, the L40S 2220 of 2520 at
 * 350 W, in gpu-benches' FMA loop), else 1 (tc_clock() says why).  The
 * power term
 * and the clock are two estimates of one thing, the clock the power limit
 * leaves: a clock measured at the limit already contains it, so the lower
 * stands, never their product (tc_log_rule());
 * w the tensor width (dense FP16 FLOP per clock per SM, rounded to a
 * power of two: V100, T4, A40, H20 1024, A100 2048, H100 4096, B200 8192;
 * L40 and L20 512), W the board power and P_fp16 the dense FP16 peak in
 * TFLOP/s: a board with few watts per unit of tensor throughput cannot
 * hold its boost clock under a long GEMM; a wider MMA spends less energy
 * per FLOP (fewer operand reads per FLOP), hence the width's exponent on
 * the watts.  The FP16 peak is the basis for every dtype: the same tensor
 * cores draw about the same power at FP8's doubled rate.  The rule is
 * fitted together with the shape constants, on the measured GEMMs and on
 * the MAMF figures of the NVIDIA GPUs measured themselves (each a point
 * weighing as much as one GPU of the data); `surfer-bench tensorcore`
 * prints each architecture's figures predicted by the rule fitted without
 * that architecture.  The width alone (--no-power) fits rate_pow +0.089
 * (narrower MMAs keep more of their peak, the non-MMA work per tile being
 * the same), but gives the H20 0.91, no more than the A40 (1024 wide
 * both), where PipeWeave's SGLang prefill shows the H20's GEMMs at about
 * 0.95 of its peak and the A40's at 0.82; with the power term rate_pow
 * fits at +0.068 (power_rate_pow 0.62) and the watts explain the figures:
 * A100 PCIe 0.811 against SXM 0.869 at 300 against 400 W, GH200 0.838
 * against H100 0.803.
 * The clock and the FP8 figure: the L40 holds 1740 of its 2490 MHz under
 * an FMA loop (its own microbenchmark, not its GEMMs), the rule's GPUs
 * their boost clocks; PipeWeave's H800 FP8 GEMMs sat in the fit at the
 * BF16 figure (0.803) where the die's FP8 figure is 0.709, so the fit
 * held eff_dt at 0.87 against 0.89 now.  No Ada or sm_120 GEMM is in the
 * fit: their shares below are held out by construction.  make
 * bench-serving, prefill mean 13.8% -> 12.2% (L40 17.8 -> 9.4, RTX 6000
 * Ada 43.0 -> 38.9, L20 20.1 -> 19.1, H20 9.4 -> 8.6, RTX PRO 6000 13.0
 * -> 12.4, A40 1.3 -> 1.1, A6000 2.0 -> 1.8, H800 3.0 -> 2.4), decode 8.3
 * -> 8.0, whole batch 8.2 -> 7.1, vLLM 3.0 -> 3.1; make bench-tc, pairs
 * with the architecture held out H800 -> H20 19.5% -> 15.6%, H20 -> H800
 * 20.1 -> 18.3, A40 -> A100 10.9 -> 10.4 (roofline 10.7), mean 16.5 ->
 * 15.6; the MAMF figures held out 2.6% -> 3.2%; make bench-published
 * 11.5% -> 12.2% (the H100's BF16 GEMMs 2.3% faster with eff_dt 0.89, on
 * runs predicted fast already; attention.c's constant, fitted relative
 * to this rate, rescaled so that attention keeps its rate).  That clock
 * was first read from the file's second board, an L40S (2220 of 2520 MHz
 * at 350 W), and multiplied with the power term; with the L40's own 1740
 * MHz the product counted its 300 W twice (Ada prefill 14.8 -> 17.1 %).
 * The lower of the two instead, constants refitted (tcgemm_params.c):
 * make bench-serving prefill / decode / whole batch 8.8 / 4.3 / 5.4 % ->
 * 8.4 / 4.6 / 5.1 (per held-out architecture, prefill: Ampere 1.5 -> 1.0,
 * Ada 14.8 -> 13.1, Hopper 4.9 -> 5.0, Blackwell 12.4 -> 12.7; L40 9.1 ->
 * 3.6, RTX 6000 Ada 15.5 -> 14.4, L20 19.1 -> 19.8, RTX PRO 6000 12.4 ->
 * 12.7; the product form refitted the same way: 8.8 / 4.6 / 5.3, Ada
 * 14.7), make bench-tc unchanged (the A40, 1725 of 1740 MHz, is the one
 * fitted GPU with a clock below boost, and its power term is the lower:
 * every pair within 0.1), make bench-published 8.0 -> 7.9 %.  The decode
 * moves with the refit, not the form (H800 2.3 -> 3.4 %).
 * The boost clock's allowance b: the power term was capped at 1, the
 * clock the datasheet quotes the tensor peak at, and Hopper's datasheets
 * quote 1830 MHz (the H20's 148 TFLOP/s: 1853 over 78 SMs of 1024 FLOP a
 * clock; PipeWeave's hardware files say 1830 for the H20, H100 and H800)
 * where GPU Boost takes a board under its power limit to 1980 (gpu-benches'
 * H200 FMA loop: 1980 MHz at 398 of 700 W).  A board with more watts per
 * TFLOP/s than power_w_ref is under its limit at the quoted clock, so the
 * term now runs on past 1, up to b, the boost clock (never past it, nor
 * past a measured clock c).  Of the GPUs in the data only the H20 (400 W
 * for 148 TFLOP/s, 2.70 W per TFLOP/s: at the compiled-in constants'
 * edge, 2.75) can take it; PipeWeave's SGLang prefill implies its GEMMs at
 * 0.94-0.95 of the quoted peak, above eff_dt x 1 (0.87-0.89).  Every
 * boost under 1 % is a datasheet's rounding and counts 0 (L40, V100, RTX
 * PRO 6000).  Refitted (tcgemm_params.c; the H20's GEMMs in the fit take
 * it too, and the weakly bound constants move: power_rate_pow 0.02 ->
 * 0.14, rate_pow -0.10 -> -0.07): make bench-serving, everything held
 * out, prefill / decode / whole batch 9.7 / 6.0 / 7.2 -> 9.4 / 5.9 / 6.7
 * % (Hopper 8.1 / 4.3 / 6.9 -> 6.2 / 3.9 / 5.3: H20 prefill 14.6 -> 9.9,
 * its held-out share 0.957 -> 1.000; Ada 14.6 / 9.1 / 10.2 -> 14.8 / 9.1
 * / 10.4, Blackwell 12.0 / 4.9 / 7.2 -> 13.1 / 4.9 / 7.5 through the
 * refitted constants: RTX PRO 6000 share 0.782 -> 0.758; Ampere
 * unchanged), vLLM 6.3 -> 4.5 %; make bench-tc, ratio pairs 9.6 -> 10.1 %
 * (H800 -> H20 5.4 -> 5.9, H20 -> H800 5.3 -> 6.0, A100 -> A40 9.0 ->
 * 9.1, T4 -> V100 13.0 -> 14.6: each through its fold's refitted
 * constants, no pair's GPU but the H20 takes b; every fold's rms log
 * error the same to 0.001: the constants move along directions the data
 * do not bind), the MAMF figures held out
 * 3.2 -> 3.6 % (B200 -3.2 -> -5.8, GB200 +5.3 -> -5.4); make
 * bench-published 7.9 -> 7.9 %.
 * Small-M FP16/BF16 GEMMs (m <= 64 rows: a decode step's batch tokens times
 * weights of thousands by thousands) do not run the large-GEMM tiles.
 * cuBLAS picks a tile as tall as M (64 rows on Hopper's wgmma, narrower
 * with the operands swapped so that M is the MMA's 8..256-wide side; 32-
 * and 64-row tiles before it), so the tile height is m rounded up to a
 * power of two, at least 8, and e_pad counts that tile.  When
 * such tiles do not fill the SMs it splits K (split-K or stream-K): each of
 * s = floor(SMs / tiles) slices of K runs on an SM that would idle, so
 * e_wave counts tiles x s and the K factor sees K / s; the FP32 partial
 * sums (s x m x n x 4 bytes, 8 MiB at most for m = 64, n = 4096 on 132
 * SMs) are reduced in L2 and add no DRAM traffic (counting them twice at
 * DRAM made 64 rows slower than 66 on the H800).  A slice is
 * at least TCGEMM_SPLIT_K_MIN deep (four 64-deep main-loop steps; shorter
 * ones are all prologue), so s <= K / 256.  These GEMMs then read their
 * weights once at near the DRAM rate, as measured: PipeWeave's SGLang
 * decode on the H20 (batch 8-64, 148 TFLOP/s over 4 TB/s) was predicted at
 * twice its step with the 128-row tiles.  make bench-serving, decode mean
 * error: all 21.7% -> 8.6%, H20 109.8% -> 12.6%, H800 4.8% -> 6.6%;
 * make bench-tc's per-pair mean 21.7% -> 21.6% (tcgemm_params.c's
 * constants kept as fitted with the 128-row tiles; a refit moves each by
 * under 0.3%).  On Hopper cuBLAS's small-M kernels are persistent with a
 * stream-K scheduler (CUTLASS 3's StreamKScheduler: each SM takes an
 * equal share of all tiles' K steps), so s = SMs / tiles, not a whole
 * number, and the SMs are all busy: where a decode GEMM is compute-bound,
 * the H20's at 64 rows (Llama-3.1-70B at TP 8, batch 64: gate_up's 28
 * tiles of 64 x 256 on 78 SMs filled 56 with s = 2), its step was
 * predicted 16.0 % over, now 8.6 % (make bench-serving).  The same
 * scheduler takes the 128-row tiles of 65-128 rows that do not fill the
 * SMs: the H800's batch-72 decode (Llama-3.1-70B at TP 8: QKV's 5 tiles
 * of 128 x 256 on 132 SMs, 4 % of them with no split) was predicted
 * 8.4 % over, now 2.5 %.  Elsewhere the 64-row bound stays (no split GEMM
 * of 65-128 rows is measured there; PipeWeave's Hopper BF16 GEMMs are not
 * in the data, so make bench-tc does not move).
 * All GPU dependence is in the datasheet figures (SMs, peak, bandwidth,
 * board power) and the MAMF figures, so constants fitted on some GPUs
 * carry to others.  The constants are fitted
 * by least squares on log(model / measured) with Nelder-Mead (the max()
 * of the FP8 form and the width's rounding are not differentiable), each
 * GPU weighted equally.
 *
 * FP8 GEMMs (p->fp8 on): cuBLASLt's FP8 kernels compute 128 x 128 tiles,
 * one per SM at a time, whatever the shape; PipeWeave's H20 shows it to
 * the step: for N = K = 4096 every M up to 256 (32 or 64 tiles on 78 SMs)
 * takes 40.6 us, 288-512 rows 78.9 us, 544-896 116.5 us, as the tiles pass
 * 78, 156 and 234.  So the time is
 *
 *   T = max(waves x K x c_tile x slow, bytes / (BW x bw_eff)) + overhead
 *   c_tile = max(2 x 128 x 128 / (P_sm x eff), 256 / (feed x clock))
 *
 * per step of K of a tile: its FLOPs at the SM's share of the FP8 peak, or
 * its 256 operand bytes at feed bytes per clock from L2, whichever is
 * longer (the H20's tile runs at 0.97 of its SM's peak, 8.9 ns per step;
 * the H800, four times the tensor rate per SM, takes 2.66 ns where its
 * peak would allow 2.19: 48 bytes per clock); slow = 1 + (1/cap - 1) t /
 * (t + boost) the power limit growing in over a long kernel's main loops t,
 * cap = min(1, (W / P_fp16) / w_ref)^power_pow as above (the H800's large
 * GEMMs fall to 0.63 of its peak, its one-wave ones reach 0.82).  Fitted on
 * PipeWeave's training file, on its test file the ratio form is 6.3% off
 * from H20 to H800 and 6.3% back (general formula 21.9% and 27.8%, FLOP/s
 * ratio 54.6% and 149%).
 * With no FP8 GEMM to fit it on (Hopper, the only architecture with FP8
 * GEMMs in the data, held out) the form keeps its structure, the waves of
 * whole tiles, and takes its constants from the general ones: a tile's
 * K + k0 steps at eff_dt x the GPU's share (its FP8 MAMF figure or the
 * rule) of the SM's peak, no feed limit and no power ramp (nothing but
 * FP8 GEMMs informs them), bw_eff and the overhead (tc8_general()).  The
 * general form's softened waves (wave_pow 0.53, fitted on FP16 GEMMs
 * whose libraries split K and pick tiles to fill the SMs) had the H20's
 * 1-wave GEMMs at half their time: M = 4, N = 384, K = 2048, three tiles
 * on 78 SMs, takes 22.2 us measured, 2048 steps of 8.9 ns, predicted
 * 9.5 us.  make bench-tc, the pairs with Hopper held out: H800 -> H20
 * 15.7% -> 9.5%, H20 -> H800 18.4% -> 9.7% (the fitted constants, and so
 * every prediction outside that bench, unchanged).
 * What was left then was not the H800's power but its L2.  Its FP8 tiles'
 * rate goes with how many SMs run them, not with how long the GEMM runs:
 * a tile's K loop (the time less 4 us, over waves x K steps at the SM's
 * peak) reaches 0.76-0.81 of the SM's FP8 peak when under a fifth of the
 * 132 SMs hold a tile, 0.64 at half, 0.53-0.57 with every SM busy in one
 * wave and 0.61 over 10 waves and more, and at the same share of busy SMs
 * GEMMs under 20 us and up to 100 us run alike (0.76 / 0.81, 0.53 / 0.57);
 * the H20's stay at 0.91-0.97 whatever the share (PipeWeave's 21,024
 * rows).  A 128 x 128 FP8 tile takes in 256 operand bytes per step of K:
 * at the H800's SM peak (8192 FP8 FLOP a clock) 64 bytes a clock per SM,
 * 16.7 TB/s over 132 SMs at 1980 MHz, where the die's L2 moves 9.7 TB/s
 * (gpu-l2-cache on the H200, a quarter of L2: 0.58 of the demand) and at
 * best 13.5 TB/s (1.5 MB: 51.8 bytes a clock per SM, 0.81 of it); the
 * H20's SM, at a quarter of that rate, asks 16 bytes a clock, 2.5 TB/s
 * over its 78 SMs.  So the held-out form (tc8_general()) runs a tile's K
 * loop at eff_dt x the rule's width term alone, min(1, mamf_1024 x
 * (w/1024)^-rate_pow) (neither the MAMF figure nor the power term: both
 * describe the whole GPU under a full load, whose limit here is the L2's),
 * its operands through one SM's share of the L2's best rate (l2_peak /
 * SMs), the two joined by the fitted power mean (mem_pow), and the whole
 * GEMM's operands, tiles x K x 256 bytes, through the L2 bandwidth of a
 * large data set, joined the same way (no constant of its own: the L2
 * figures are gpu_specs/figures.c's, the die's where measured, else the
 * rule).  make bench-tc, the pairs with Hopper held out, over PipeWeave's
 * test file: H800 -> H20 9.0 -> 5.4 %, H20 -> H800 9.1 -> 5.3 (bias -1.5 ->
 * -0.3 and +1.5 -> +0.3 %; over all 10,512 rows 9.0 / 9.1 -> 5.3 / 5.2;
 * the H800 from the H20 by its waves: one wave +10.6 -> +3.6 % median,
 * five and more -8.5 -> +2.9).  It rests on the die's L2 figures: with
 * the rule (the median bytes per SM and clock of the measured NVIDIA GPUs
 * of other architectures, an A100's and an L40's) in their place for the
 * H800 too, 25.8 / 36.7 %.  Tried and dropped (the same pairs):
 *  - the L2 of a large data set alone, no port: 9.3 / 8.2 % (bias +8.1:
 *    the H800's lightly loaded tiles at 0.87 of the peak);
 *  - the SM's port alone, no L2 for the whole GEMM: 11.1 / 9.4;
 *  - both, joined by their max instead of the power mean: 15.0 / 12.4;
 *  - both, a tile's rate from the die's FP8 MAMF figure (0.709 of the
 *    peak, a full load's) instead of the width term: 12.4 / 14.6;
 *  - both, and the power term's clock at a share a of busy SMs (power as
 *    a x clock^3 at the cap: clock x a^-1/3, at most the boost clock):
 *    6.3 / 6.7;
 *  - the L2's best rate for the whole GEMM too (no large data set): 7.2 /
 *    6.6.
 * The fitted form (FP8 constants of its own, the default) keeps its feed
 * and power ramp: this is the form a GPU gets when no FP8 GEMM of its
 * architecture was fitted.

 * Tried and dropped for the Ada boards (make bench-serving, prefill, the
 * constants refitted on the same data, none of it Ada's):
 *  - watts per SM and clock, power_rate_pow fixed at 1 (a cycle of a
 *    narrow MMA costing what a wide one costs): 13.8% -> 14.2%, L40 8.8
 *    but L20 30.0 (92 SMs on 275 W against the L40's 142 on 300 W: the
 *    L20 reaches 0.97 of its datasheet rate, the L40 0.60, RTX 6000 Ada
 *    0.27; no feature of the fitted GPUs orders them so);
 *  - the cap on eff_dt x share instead of the share (the H20 and the L20
 *    run above 0.87 of their peaks): the fit moves mamf_1024 to 1.015,
 *    no change;
 *  - the measured clock in place of the power term wherever it is below
 *    boost (not the lower of the two): the A40, whose FMA loop reached
 *    its 300 W at 1725 of 1740 MHz, loses its power term, and its GEMMs
 *    (which draw more than an FMA loop) come out fast: make bench-tc mean
 *    12.8% -> 13.9% (A100 -> A40 9.2 -> 11.5, A40 -> A100 10.1 -> 10.8,
 *    V100 -> T4 23.0 -> 24.6, T4 -> V100 15.3 -> 17.2), make
 *    bench-serving prefill 9.7% with the constants of the time (A40 1.6
 *    -> 5.9, RTX A6000 1.3 -> 7.0);
 *  - the boost clock over the clock the datasheet's peak is quoted at
 *    (Hopper's 989 and 148 TFLOP/s are 4096 and 1024 FLOP per SM at 1830
 *    MHz; the boards boost to 1980) as a factor on the rule: with the
 *    constants of the time the H20's prefill 8.6 -> 2.1% (all 8.8 ->
 *    8.0), but refitted the H100's MAMF figure, 0.803 of the quoted peak,
 *    becomes 0.742 of the boost-clock one, which the power term cannot
 *    fit beside the others: the MAMF figures held out 3.2% -> 8.0%
 *    (GH200 +14.1, A100 SXM -8.6), make bench-tc 12.8% -> 13.6%;
 *  - the watts per TFLOP/s over the node's energy per operation
 *    (power_node_energy(), POWER_NODE_LINEAR: 12 nm 2.4x the energy of
 *    5 nm) in the power term, refitted: make bench-serving prefill 8.4%
 *    -> 7.2% (L20 19.8 -> 8.5, RTX PRO 6000 12.7 -> 6.8, but H20 8.7 ->
 *    14.9; Ada 13.1 -> 10.4, Blackwell 12.7 -> 6.8, Hopper 5.0 -> 7.5),
 *    decode 4.6 -> 5.1%, whole batch 5.1 -> 5.7%, yet make bench-tc 12.8%
 *    -> 14.8% (T4 -> V100 15.3 -> 21.7, V100 -> T4 23.0 -> 27.1: both
 *    worse than the FLOP/s ratio) and the MAMF figures held out 3.2% ->
 *    5.0% (B200 -14.1): with 5 nm's watts counting 2.4x, the H20 sits far
 *    above every other GPU and the held-out T4 comes out barely limited.
 * BW, the bandwidth a GEMM's operands stream at, is the achievable figure
 * from kernel-level sources (gpu_mem_bw_kernel_gbps(), gpus.c): a
 * gpu-benches gpu-stream measurement, else the rule (the datasheet times
 * the measured boards' share, 15/16 of it with in-band ECC), never a
 * device table's figure (Habitat's devices.yml, CentML's devices.csv: no
 * kernel, size or clock stated; 7-16 % below gpu-stream on the V100, A100
 * and A40 both measured, where the rule is 3.2 % off).  Of the GPUs with
 * tensor cores that moves the T4 (239 -> 285 GB/s), the L4 (254 -> 267)
 * and the RTX 2080 Ti (524 -> 585); the other models keep the tables'
 * figures (gpus.c says why).  Informed by the T4, and disclosed as such:
 * its skinny GEMMs (N 16-128) are memory-bound and run at 272-310 GB/s
 * (4096 x 16 x 4096, 33.5 MB, in 123 us; 1024 x 16 x 500000 at 310 GB/s),
 * above the 239 of CentML's devices.csv (Habitat's own file says the
 * datasheet's 320), and came out 20-60 % slow.  The compute and memory
 * times are joined by a power mean rather than their max: a GEMM near the
 * ridge pays for both (its tiles' loads and MMAs overlap only in part),
 * and with the max() the fit lowered bw_eff to slow such shapes, which
 * made the purely memory-bound ones (a decode step's small-M GEMMs) slow
 * instead.  q fits at 6.4 and bw_eff at 0.83 (0.90 before, held up by the
 * T4's low figure: its skinny GEMMs then needed 1.3 times the rest's
 * share).  make bench-tc, ratio from the other GPU, each architecture out
 * of the fit: H800 -> H20 9.5 -> 9.0 %, H20 -> H800 9.7 -> 9.1, A40 ->
 * A100 10.1 -> 9.8, A100 -> A40 9.2 -> 9.0, T4 -> V100 15.3 -> 13.0,
 * V100 -> T4 23.0 -> 15.0 (the FLOP/s ratio 21.5), mean 12.8 -> 10.8;
 * from the shape 18.7 -> 16.4 % (H20 25.8 -> 23.4, H800 30.9 -> 27.6,
 * T4 23.8 -> 15.6).  The source rule alone: mean 11.1 %, but make
 * bench-serving's decode 6.2 -> 6.5 % (held-out constants); the power
 * mean alone (the T4 at 239): decode 6.2 -> 10.9 % (Hopper's held-out
 * step constant 3.8 ms); both: prefill / decode / whole batch 9.6 / 6.2
 * / 6.6 -> 9.2 / 5.5 / 6.4 %, vLLM 4.9 -> 5.3 %, make bench-published
 * 7.9 -> 8.0 % (its H100 runs, predicted fast already, 0.1-0.4 % faster
 * with the refitted constants).  The serving mean gains on Hopper (whole
 * batch 8.2 -> 6.5 %) and loses on the GDDR boards' decode steps (RTX
 * A6000 2.3 -> 9.0 %, RTX 6000 Ada 6.8 -> 12.0; Ampere's whole batch 1.5
 * -> 2.0, Ada's 8.3 -> 8.8, Blackwell's 5.0 -> 6.1): SGLang's decode
 * GEMMs stream at more than the 0.83 the measured GEMMs fit, and its
 * per-step CPU constant, refitted without each architecture, falls to 0.  The T4's large GEMMs (0.57-0.71 of its
 * peak) still come out 10-20 % fast: with the T4 held out no fitted GPU
 * is as power-limited.
 * Tried and dropped (make bench-tc, each GPU held out, mean of the six):
 *  - before the MAMF figures, the tensor width on one efficiency of the
 *    dense peak, eff x (FP16 FLOP per clock per SM / 1024)^-w: w fitted at
 *    0.03-0.18, mean 17.8% -> 17.9% (H20 25.8 -> 23.5, A100 7.3 -> 11.6);
 *    and the power term on it: better on H20, V100, T4 and A40, much worse
 *    on the H800, whose watts per TFLOP/s lie below every other GPU's (it
 *    now runs at its die's figure, which holds its power limit);
 *  - a floor of one SM's share at its peak, waves x 2 x rows x tile n x K /
 *    (peak / SMs) with rows m rounded up to 16, 32 or 64 (the H20's small-m
 *    FP8 GEMMs take a time linear in K whatever n is, and are predicted
 *    ~47% fast): 37.7-38.5%, split-K kernels run far faster than that;
 *  - the power term with watts per TFLOP/s divided by the node's energy
 *    (tile_node_energy(), as the FP32 cap does): 20.5% (T4 43.6%: with
 *    the T4 held out no other GPU is power-limited), against 21.5% with
 *    the plain power term and 17.8% without;
 *  - the MAMF rule with the width alone (--no-power): rate_pow +0.089,
 *    from the shape 17.8% (A100 11.9, H20 24.0), the ratio 21.2%, the
 *    MAMF figures held out 4.2%; the H20 at 0.91, the A40's share.
 * Tried and dropped since (mean 10.8 %, the constants refitted each time):
 *  - the FP8 form's power ramp on every GPU, 1 + (1/c - 1) t / (t + boost)
 *    on the main loop's time t at the share before the cap c, c the
 *    rule's power term, on the GPUs whose share holds their power limit
 *    (a MAMF figure, or the rule where its power term binds), boost
 *    fitted with the other constants, and tc8_general() ramping the same
 *    way: with Hopper held out the fit puts the H800's GEMMs near their
 *    share before the cap, over all of PipeWeave's rows the H20 from the
 *    H800 9.0 -> 13.2 % (bias -1.0 -> +13.0), the H800 from the H20 9.1
 *    -> 10.9 (bias +2.1 -> -10.7, its large GEMMs -15.6): no other
 *    architecture's GEMMs show the H800's ramp (the T4's, 1-50 ms long,
 *    run at 0.60-0.72 of its peak whatever their length), so nothing
 *    informs boost;
 *  - a DRAM share of its own for the small-M tiles, fitted (0.79, the
 *    rest's 0.87; every GPU in the fit): make bench-tc
 *    10.8 -> 10.8 % (H20 9.2, H800 9.2, A100 9.7), make bench-serving
 *    decode 5.5 -> 9.1 % (RTX A6000 9.0 -> 20.3, A40 5.7 -> 13.6): the
 *    data's small-M GEMMs (Vidur's, DeepBench's 35 x 8457) run their
 *    weights slower than SGLang's decode GEMMs do.  A share of 1 instead,
 *    not fitted (the kernel-level figure is gpu-stream's, a stream of
 *    reads as a weight panel is; chosen after seeing the RTX A6000's
 *    decode), the rest refitted: decode 5.5 -> 10.3 % (RTX A6000 9.0 ->
 *    3.8, RTX 6000 Ada 12.0 -> 4.7, but H20 5.7 -> 23.0, H800 2.0 ->
 *    11.7: the step CPU constant, refitted without each architecture,
 *    rises from 0 to 1.4-2.3 ms), prefill 9.2 -> 8.9, whole batch 6.4 ->
 *    6.1;
 *  - a small N taken as a small M with the operands swapped (C^T = B^T
 *    A^T), so that DeepBench's N = 8..64 GEMMs take the small-M tiles and
 *    split K: the shape-only V100 16.0 -> 13.0 %, but the ratio mean 10.8
 *    -> 11.9 (V100 -> T4 15.0 -> 18.4, T4 -> V100 13.0 -> 12.2, H20 <->
 *    H800 9.0 / 9.1 -> 10.1 / 11.1 through the refitted constants, A40
 *    -> A100 9.8 -> 10.1, A100 -> A40 9.0 -> 9.5);
 *  - split K as stream-K does (SMs / tiles slices) for every FP16/BF16
 *    GEMM whose tiles do not fill the SMs, not for the small-M tiles
 *    alone: Vidur's A100 from its A40 at 65-256 rows came out +11.0 %
 *    slow (at 129-256 rows and N 5120, 2 x 40 tiles of 128 x 128 leave 28
 *    of the A100's 108 SMs idle, 4 of the A40's 84) and goes to +0.4
 *    (the 65-256 rows' error 17.5 -> 14.7 %), but over all their rows
 *    the A100 stays at 9.8 %, the A40 9.0 -> 9.3 and, through the
 *    refitted constants, the H20 and the H800 over all of PipeWeave's
 *    rows 9.0 / 9.1 -> 9.8 / 10.8;
 *  - the small-M tiles' time growing with M off Hopper (mma.sync parts):
 *    PipeWeave's SGLang steps imply their GEMMs slow by 6-12 % from 8 to
 *    32 rows on every FlashInfer GPU (the H800, one 64-row tile for both,
 *    not), Vidur's A40 and A100 projections by 3-16 % where this model
 *    gives 0.5-1 %.  With the compiled-in constants (make bench-serving
 *    --gemm-data none --compiled comm,attn, decode / whole batch 5.2 /
 *    5.6 %): the MMAs joined by a power mean of q 1.5 (their own) 6.4 /
 *    6.4, q 2 5.6 / 5.9, q 1 11.6 / 8.1; q 1.5 with a DRAM share of 0.9 of
 *    their own 4.5 / 5.4; the MMAs added, a times t_c, to a share s:
 *    s 0.85 a 0 4.7 / 5.3, s 0.9 a 0.5 4.8 / 5.6, s 0.95 a 0.5 5.0 / 5.3,
 *    s 0.9 a 1 7.7 / 6.8.  The gains need a DRAM share of their own (the
 *    form dropped above) picked on the runs they are scored on, and the
 *    RTX 6000 Ada at TP 2 (+19 / +12 %) goes to +15 / +25 with q 1.5
 *    and the share 0.9: not landed.
 */
#include "predictor/tcgemm.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "predictor/conv.h"
#include "predictor/nelder.h"
#include "predictor/roofline.h"

/* Bytes per element of the inputs and of the output: FP8 GEMMs write BF16,
 * INT8 GEMMs write INT32, the others write their input dtype. */
static int tc_sizes(enum gpu_dtype dt, double *in, double *out)
{
	switch (dt) {
	case GPU_DT_TF32: *in = 4; *out = 4; return 0;
	case GPU_DT_FP16:
	case GPU_DT_BF16: *in = 2; *out = 2; return 0;
	case GPU_DT_FP8:  *in = 1; *out = 2; return 0;
	case GPU_DT_INT8: *in = 1; *out = 4; return 0;
	default: return -1;
	}
}

/* DRAM bytes per output element: written once in the output dtype, or,
 * added into an FP32 output (k->accumulate: beta = 1, as Megatron's
 * gradient-accumulation fusion and TE's fuse_wgrad_accumulation run the
 * weight-gradient GEMM into the FP32 main gradient), read and written at
 * 4 bytes each.  The epilogue's traffic joins the operands' in the memory
 * term; the max() with the compute term lets it cost only where it binds
 * (Hopper's warp-specialized kernels run a tile's epilogue under the next
 * tile's main loop). */
static double tc_out_bytes(const struct pred_kernel *k, double out)
{
	return k->accumulate ? 8.0 : out;
}

/* DRAM bytes per element of the second operand, the weights: in the
 * input dtype (in), or stored narrower and widened in registers
 * (k->b_bytes: weight-only quantization, as Marlin runs AWQ and GPTQ
 * checkpoints: 4-bit weights and their scales, 0.52 bytes).  The math is
 * the dtype's MMA all the same (Marlin dequantizes in registers and
 * issues the 16-bit MMAs), so only the memory term moves: unmeasured, no
 * Marlin GEMM is in the data; a decode step's GEMMs, bound by their
 * weights' bytes, take about a quarter of the 16-bit time, a prefill's,
 * bound by the MMAs, the 16-bit time. */
static double tc_b_bytes(const struct pred_kernel *k, double in)
{
	return k->b_bytes > 0 && k->b_bytes < in ? k->b_bytes : in;
}

/* The GPU-dependent, constant-free quantities of one GEMM on one GPU. */
struct tc_feat {
	int dt;
	double log_wave, log_pad; /* log e_wave, log e_pad              */
	double k;                 /* K depth, elements                  */
	double tc_ns;             /* F / P_dt, ns                       */
	double tm_ns;             /* bytes / BW, ns                     */
	double log_wpt;           /* log(board W / FP16 TFLOP/s); NAN ?  */
	double log_width;         /* log(FP16 FLOP/clk/SM / 1024)        */
	double log_fig;           /* log of the GPU's MAMF share; NAN: none */
	double log_clk;           /* log tc_log_ceiling(): the clock held
				     over the clock the peak is quoted at */
	double log_mx;            /* log gpu_matrix_eff() (without figures) */
	double waves;
};

/* The DRAM bandwidth of g a GEMM's operands stream at before bw_eff,
 * bytes/s: the achievable figure from kernel-level sources
 * (gpu_mem_bw_kernel_gbps(): a device table's copy figure gives way to the
 * rule; the header says what it moved). */
static double tc_bw_bytes(const struct gpu_spec *g)
{
	return gpu_mem_bw_kernel_gbps(g) * 1e9;
}

/* The FP8 tile-wave form's constant-free quantities: the waves of 128 x
 * 128 tiles, a tile's step of K at the SM's peak and at one byte per
 * clock, both times K, in ns; the board's watts per FP16 TFLOP/s; a
 * tile's operands (2 x 128 bytes per step of K) at one SM's share of the
 * L2's best rate (l2_peak / SMs), and all tiles' operands at the L2
 * bandwidth of a large data set, in ns (0: no figure or rule). */
struct tc8_feat {
	double waves, k_peak_ns, k_feed_ns, tm_ns, wpt, k_port_ns, l2_ns;
};

/* g's L2 figure f (figures.h: measured, its die's or the rule), bytes/s;
 * 0 when none. */
static double tc_l2_bytes(const struct gpu_spec *g, enum gpu_figure_kind f)
{
	struct gpu_figure_value v;
	return gpu_figure(g, f, 0, &v) != GPU_PROV_NONE && v.value > 0 ? v.value * 1e9 : 0;
}

/* g's watts per dense FP16 TFLOP/s, its table row's (a board capped below
 * its TDP or paced by a job's slowest is a copy with derated peaks and the
 * row's TDP, whose clock share the peaks carry already: gpu_row_rate());
 * NAN without a TDP or FP16 peak. */
static double tc_wpt(const struct gpu_spec *g)
{
	double p16 = gpu_row_rate(g, roofline_peak_flops(g, GPU_DT_FP16) / 1e12);
	return g->tdp_w > 0 && p16 > 0 ? g->tdp_w / p16 : NAN;
}

static double tc_log_wpt(const struct gpu_spec *g)
{
	return log(tc_wpt(g));
}

static int tc8_features(const struct pred_kernel *k, const struct gpu_spec *g,
			struct tc8_feat *f)
{
	if (!k || !g || k->op != PRED_OP_GEMM || k->dtype != GPU_DT_FP8 || !k->m || !k->n ||
	    !k->k || !g->sms)
		return -1;
	double peak = roofline_peak_flops(g, GPU_DT_FP8) * gpu_matrix_eff(g),
	       bw = tc_bw_bytes(g);
	double clk = (g->boost_clock_mhz ? g->boost_clock_mhz : g->base_clock_mhz) * 1e6;
	if (!(peak > 0) || !(bw > 0) || !(clk > 0))
		return -1;
	double m = (double)k->m, n = (double)k->n, kk = (double)k->k;
	double b = k->batch ? (double)k->batch : 1.0, t = TCGEMM_TILE;
	double tiles = b * ceil(m / t) * ceil(n / t);
	f->waves = ceil(tiles / g->sms);
	f->k_peak_ns = kk * 2.0 * t * t / (peak / g->sms) * 1e9;
	f->k_feed_ns = kk * 2.0 * t / clk * 1e9;
	f->tm_ns = ((m * kk + kk * n) + m * n * tc_out_bytes(k, 2)) * b / bw * 1e9;
	f->wpt = tc_wpt(g);
	if (isnan(f->wpt))
		f->wpt = INFINITY;
	double l2 = tc_l2_bytes(g, GPU_FIG_L2_BW), l2p = tc_l2_bytes(g, GPU_FIG_L2_PEAK_BW);
	f->k_port_ns = l2p > 0 ? kk * 2.0 * t / (l2p / g->sms) * 1e9 : 0;
	f->l2_ns = l2 > 0 ? tiles * kk * 2.0 * t / l2 * 1e9 : 0;
	return 0;
}

static double tc8_time(const struct tc8_feat *f, const struct tcgemm_fp8 *p, int *mem_bound)
{
	double c = f->k_peak_ns / p->eff, cf = p->feed_bpc > 0 ? f->k_feed_ns / p->feed_bpc : 0;
	if (p->l2 && f->k_port_ns > 0)
		c = roofline_join_ns(c, f->k_port_ns, p->l2_q);
	double t = f->waves * (c > cf ? c : cf);
	if (p->l2 && f->l2_ns > 0)
		t = roofline_join_ns(t, f->l2_ns, p->l2_q);
	double cap = p->w_ref > 0 && f->wpt < p->w_ref ? pow(f->wpt / p->w_ref, p->power_pow) : 1;
	if (cap < 1 && cap > 0)
		t *= 1 + (1 / cap - 1) * (p->boost_ns > 0 ? t / (t + p->boost_ns) : 1);
	double t_m = f->tm_ns / p->bw_eff;
	if (mem_bound)
		*mem_bound = t_m > t;
	return (t > t_m ? t : t_m) + p->overhead_ns;
}

/* The rows of the tile cuBLAS picks for a GEMM of m < 128 rows: m rounded
 * up to a power of two, at least 8 (tcgemm.c's header says why). */
static double tc_small_rows(double m)
{
	double r = 8;
	while (r < m)
		r *= 2;
	return r;
}

/* log of the tensor width, the dense FP16 FLOP per clock per SM over
 * 1024, rounded to a power of two (the MMA units are; the datasheet's
 * boost clock is not always the one its tensor rate is quoted at: H100
 * 1980 MHz against 1830); 0 when unknown. */
static double tc_log_width(const struct gpu_spec *g)
{
	double p16 = roofline_peak_flops(g, GPU_DT_FP16);
	double clk = (g->boost_clock_mhz ? g->boost_clock_mhz : g->base_clock_mhz) * 1e6;
	if (!(p16 > 0) || !(clk > 0) || !g->sms)
		return 0;
	return round(log2(p16 / ((double)g->sms * clk) / 1024)) * M_LN2;
}

/* log of g's boost clock over the clock its dense FP16 tensor peak is
 * quoted at (the peak over SMs x the rounded width of tc_log_width()), 0
 * when the peak is quoted at the boost clock or above.  Hopper's
 * datasheets quote 1830 MHz (H100 SXM 989.4 TFLOP/s = 132 x 4096 x 1830
 * MHz; H20 148 = 78 x 1024 x 1853, PipeWeave's hardware/H20.json: smFreq
 * 1830), B200's 1856 (2250 = 148 x 8192 x 1856), where the boards boost
 * to 1980 and 1965 MHz (+8.2, +6.9 and +5.9 %).  Under 1 % is the
 * rounding of a datasheet's peak, not a clock, and counts 0 (L40 181
 * TFLOP/s: 2489.5 of 2490 MHz, V100 SXM2 125: 1526 of 1530, RTX PRO 6000
 * 500: 2597 of 2617; the L20's 119.5 is 2537 MHz, above its 2520). */
static double tc_log_boost(const struct gpu_spec *g)
{
	double p16 = roofline_peak_flops(g, GPU_DT_FP16);
	double clk = (g->boost_clock_mhz ? g->boost_clock_mhz : g->base_clock_mhz) * 1e6;
	double lw = tc_log_width(g);
	if (!(p16 > 0) || !(clk > 0) || !g->sms)
		return 0;
	double r = log((double)g->sms * clk * 1024 / p16) + lw;
	return r > log(1.01) ? r : 0;
}

/* log of g's MAMF figure as tcgemm takes it (tcgemm_mamf_share()), NAN
 * when the rule stands in. */
static double tc_log_figure(const struct gpu_spec *g, enum gpu_provenance *prov)
{
	struct gpu_figure_value v;
	enum gpu_provenance pr = gpu_figure(g, GPU_FIG_MAMF_BF16, 0, &v);
	if (prov)
		*prov = pr;
	if ((pr == GPU_PROV_MICROBENCH || pr == GPU_PROV_MEASURED || pr == GPU_PROV_SAME_DIE ||
	     (pr == GPU_PROV_RULE && gpu_cc_is_amd(g->cc))) && v.value > 0)
		return log(v.value);
	return NAN;
}

/* log of g's share for a GEMM of dtype dt: for FP8 its FP8 MAMF figure
 * where g or its die was measured (H100 SXM 0.709, H200 0.734, GH200
 * 0.776, B200 0.763, GB200 0.723 of the FP8 peak: below the BF16 figure
 * on every part, as the doubled MMA rate leaves the same per-tile work
 * and power twice the weight; the H800 takes the H100's), else the BF16
 * figure (tc_log_figure()), NAN when the rule stands in. */
static double tc_log_figure_dt(const struct gpu_spec *g, enum gpu_dtype dt)
{
	struct gpu_figure_value v;
	enum gpu_provenance pr;
	if (dt == GPU_DT_FP8) {
		pr = gpu_figure(g, GPU_FIG_MAMF_FP8, 0, &v);
		if ((pr == GPU_PROV_MICROBENCH || pr == GPU_PROV_MEASURED || pr == GPU_PROV_SAME_DIE) &&
		    v.value > 0)
			return log(v.value);
	}
	return tc_log_figure(g, NULL);
}

/* The clock g holds under a long all-SM load over its boost clock, where
 * it was measured on g, or on a board of its die with the same board
 * power (gpu_specs/figures.h's fma_clock: gpu-benches' FP32 FMA loop; L40
 * 1740 of 2490 MHz at 300 W, RTX 6000 Ada the L40's, L40S 2220 of 2520
 * at 350 W; not the A100 PCIe's from the 400 W SXM board: a board with
 * fewer watts holds less), else 1.  The tensor cores run at the SM clock,
 * so a board that cannot hold its boost clock under an FMA loop reaches
 * the rule's share of a peak at the clock it holds.  Not for a GPU with a
 * MAMF figure: the figure was measured at the clock the board held. */
static double tc_clock(const struct gpu_spec *g)
{
	struct gpu_figure_value v;
	enum gpu_provenance pr = gpu_figure(g, GPU_FIG_FMA_CLOCK, 0, &v);
	const struct gpu_spec *m = pr == GPU_PROV_SAME_DIE && v.from ? gpu_find(v.from) : NULL;
	if (pr == GPU_PROV_SAME_DIE && (!m || !(g->tdp_w > 0) || fabs((double)m->tdp_w / g->tdp_w - 1) > 0.02))
		return 1;
	if ((pr == GPU_PROV_MICROBENCH || pr == GPU_PROV_MEASURED || pr == GPU_PROV_SAME_DIE) &&
	    v.value > 0 && v.value < 1)
		return v.value;
	return 1;
}

/* log of the highest clock g's tensor cores run at under a long load over
 * the clock its peak is quoted at: the measured clock (tc_clock(), a share
 * of the boost clock) times the boost clock's allowance (tc_log_boost()). */
static double tc_log_ceiling(const struct gpu_spec *g)
{
	return log(tc_clock(g)) + tc_log_boost(g);
}


/*
 * Whether k is an FP8 GEMM of a library that sizes its tiles to the shape,
 * as the FP16 libraries the general form was fitted on do, rather than
 * cuBLASLt's fixed 128 x 128 FP8 tiles (the FP8 form above, measured on
 * PipeWeave's cuBLASLt GEMMs): DeepGEMM (SGLang's block-FP8 linears on
 * Hopper: block_m 64 or 128, block_n from 16 to 256 picked to fill the
 * SMs), vLLM's CUTLASS block-FP8 kernels and the engines' Triton fused-MoE
 * kernel (its BLOCK_SIZE_M tuned to the rows), by their names as recorded
 * and as the engine builder writes them (serve.c).  Such a GEMM takes the
 * general form at the FP8 rate, small M's split K included.  Unmeasured:
 * no GEMM of these libraries is in the data; on DeepSeek-V3's decode shapes (64 rows, K = 7168) the FP8
 * form gives 26.4 us for N = 512, three times the BF16 GEMM's 8.1 us,
 * since four 128-wide tiles run the whole K on four SMs; the general form
 * 7.0 us (tests/check_tcgemm.c, fp8_libraries_that_fill_the_sms).
 */
static int tc_fills_sms(const struct pred_kernel *k)
{
	return k->dtype == GPU_DT_FP8 && k->name &&
	       (strstr(k->name, "deep_gemm") || strstr(k->name, "vllm::cutlass") ||
		strstr(k->name, "fused_moe_kernel"));
}

static int tc_features(const struct pred_kernel *k, const struct gpu_spec *g,
		       struct tc_feat *f)
{
	double in, outb;

	if (!k || !g || k->op != PRED_OP_GEMM || k->m == 0 || k->n == 0 || k->k == 0 ||
	    tc_sizes(k->dtype, &in, &outb) < 0 || g->cc < 70 || g->sms == 0)
		return -1;
	double peak = roofline_peak_flops(g, k->dtype), bw = tc_bw_bytes(g);
	if (!(peak > 0) || !(bw > 0))
		return -1;
	double m = (double)k->m, n = (double)k->n, kk = (double)k->k;
	double b = k->batch ? (double)k->batch : 1.0;
	double tw = !gpu_cc_is_amd(g->cc) && g->cc >= 90 ? TCGEMM_TILE_N_SM90 : TCGEMM_TILE;
	/* Small-M FP16/BF16 GEMMs: a tile as tall as M, K split over the SMs
	 * the output tiles leave idle (the header's small-M paragraph); on
	 * Hopper stream-K, the SMs' equal shares of the K steps, up to the
	 * 128-row tiles. */
	int hopper = !gpu_cc_is_amd(g->cc) && g->cc / 10 == 9;
	int small = (k->dtype == GPU_DT_FP16 || k->dtype == GPU_DT_BF16 || tc_fills_sms(k)) &&
		    m <= (hopper ? TCGEMM_TILE : TCGEMM_TILE / 2);
	double th = small ? tc_small_rows(m) : TCGEMM_TILE, split = 1;
	double tm = ceil(m / th), tn = ceil(n / tw);
	double tiles = b * tm * tn;
	if (small && tiles < g->sms) {
		split = hopper ? g->sms / tiles : floor(g->sms / tiles);
		double smax = floor(kk / TCGEMM_SPLIT_K_MIN);
		if (split > smax)
			split = smax > 1 ? smax : 1;
	} else if (k->conv.pass == PRED_CONV_WGRAD && tiles < g->sms) {
		/* A 16-bit convolution's filter gradient as its implicit GEMM
		 * (predict_conv_as_gemm() keeps the pass): a few K x C R S
		 * tiles over a reduction of N P Q pixels, which cuDNN's wgrad
		 * kernels split over the SMs the tiles leave idle, as the FP32
		 * model takes them (conv_wgrad_split()).  DeepBench's FP16
		 * filter gradients, V100 <-> T4, the constants fitted without
		 * the target's architecture (surfer-bench conv-train): 50.1 /
		 * 69.3 -> 46.3 / 60.7 % (T4 / V100 held out); the rule is the
		 * FP32 one, not chosen on these rows. */
		split = conv_wgrad_split(tiles, kk, g);
	}
	double waves = ceil(tiles * split / g->sms);

	f->dt = k->dtype;
	f->log_wave = log(tiles * split / (waves * g->sms));
	f->log_pad = log(m * n / (tm * th * tn * tw));
	f->k = kk / split;
	f->tc_ns = 2.0 * m * n * kk * b / peak * 1e9;
	f->tm_ns = (m * kk * in + kk * n * tc_b_bytes(k, in) + m * n * tc_out_bytes(k, outb)) * b /
		   bw * 1e9;
	f->waves = waves;
	f->log_wpt = tc_log_wpt(g);
	f->log_width = tc_log_width(g);
	f->log_fig = tc_log_figure_dt(g, k->dtype);
	f->log_clk = tc_log_ceiling(g);
	f->log_mx = log(gpu_matrix_eff(g));
	return 0;
}

static double tc_eff_dt(const struct tcgemm_params *p, int dt)
{
	return p->eff[dt] > 0 ? p->eff[dt] : p->eff[GPU_DT_FP16];
}

/* log of the power term (tcgemm.c's header): 0 when off or not limited. */
static double tc_log_power(double log_wpt, const struct tcgemm_params *p)
{
	if (p->power_w_ref > 0 && !isnan(log_wpt) && log_wpt < log(p->power_w_ref))
		return p->power_pow * (log_wpt - log(p->power_w_ref));
	return 0;
}

/* log of the rule's MAMF share of the quoted peak (tcgemm.c's header):
 * the width term times the clock the power limit leaves over the clock
 * the peak is quoted at.  That clock has two estimates: the power term,
 * from the board's watts, and log_clk (tc_log_ceiling()), the clock
 * measured under an all-SM FMA load, else the boost clock, over the
 * quoted one.  A clock measured at the power limit already contains the
 * limit, so the two are not multiplied: the lower stands (a tensor-core
 * GEMM draws at least the FMA loop's power per clock, so the FMA clock
 * bounds its clock from above).  The power term is not capped at the
 * quoted clock: a board with more watts than w_ref runs its tensor cores
 * above it, up to its boost clock (GPU Boost raises the clock while the
 * board is under its power limit; a Hopper board quoted at 1830 MHz holds
 * 1980 under an FMA loop where its power allows, gpu-benches' H200 at
 * 398 W), so the share is at most the boost clock's, else 1. */
static double tc_log_rule(double log_width, double log_wpt, double log_clk,
			  const struct tcgemm_params *p)
{
	double l = log(p->mamf_1024) - p->rate_pow * log_width, c = log_clk;
	if (p->power_w_ref > 0 && !isnan(log_wpt)) {
		double pw = p->power_pow *
			    (log_wpt + p->power_rate_pow * log_width - log(p->power_w_ref));
		if (pw < c)
			c = pw;
	}
	l += c;
	double cap = log_clk > 0 ? log_clk : 0;
	return l < cap ? l : cap;
}

/* log of the share of the dtype's dense peak before eff_dt: the MAMF
 * figure or the rule when p has one, else the matrix efficiency and the
 * power term. */
static double tc_log_share(const struct tc_feat *f, const struct tcgemm_params *p)
{
	if (p->mamf_1024 > 0)
		return !isnan(f->log_fig) ? f->log_fig
					  : tc_log_rule(f->log_width, f->log_wpt, f->log_clk, p);
	return f->log_mx + tc_log_power(f->log_wpt, p);
}

static double tc_time(const struct tc_feat *f, const struct tcgemm_params *p, int *mem_bound)
{
	double lp = tc_log_share(f, p);
	double eff = tc_eff_dt(p, f->dt) *
		     exp(p->wave_pow * f->log_wave + p->pad_pow * f->log_pad + lp) *
		     f->k / (f->k + p->k0);
	double t_c = eff > 0 ? f->tc_ns / eff : INFINITY;
	double t_m = f->tm_ns / p->bw_eff;
	if (mem_bound)
		*mem_bound = t_m > t_c;
	return roofline_join_ns(t_c, t_m, p->mem_pow) + p->overhead_ns;
}

/* Off Hopper, an FP8 GEMM at most as slow as the same GEMM in BF16.  The
 * FP8 form's operand rate from L2 was fitted on Hopper only (H20, H800:
 * the only FP8 GEMMs in the data), where it binds below the FP8 peak; on a
 * part whose FP8 rate per SM grew past Hopper's (Blackwell, 2x per SM) it
 * would predict FP8 slower than BF16 (a B200 NeMo step 820 ms against 441
 * in BF16), which an FP8 GEMM, moving half the operand bytes at twice the
 * rate, is not.  On Hopper the fitted form stands (bounding it there by
 * the BF16 form, fitted on other data, took the H20 <-> H800 pairs from
 * 6.2 % to 13.7 and 23.3 %).  mb, when not NULL, is updated when the BF16
 * time is taken. */
static double tc8_bounded(const struct pred_kernel *k, const struct gpu_spec *g,
			  const struct tcgemm_params *p, double t8, int *mb)
{
	struct pred_kernel k16 = *k;
	struct tc_feat f;
	int mb16;
	k16.dtype = GPU_DT_BF16;
	if (g->cc / 10 == 9 || !(t8 > 0) || tc_features(&k16, g, &f) < 0 || !(tc_eff_dt(p, f.dt) > 0) ||
	    !(p->bw_eff > 0))
		return t8;
	double t16 = tc_time(&f, p, &mb16);
	/* With an FP8 MAMF figure of its own or its die's (B200 0.763, GB200
	 * 0.723 of the FP8 peak), the general form at that figure and the FP8
	 * peak (tc_features() takes it): twice the BF16 rate there, not the
	 * BF16 time. */
	struct gpu_figure_value v;
	enum gpu_provenance pr = gpu_figure(g, GPU_FIG_MAMF_FP8, 0, &v);
	struct tc_feat f8;
	if (p->mamf_1024 > 0 && v.value > 0 &&
	    (pr == GPU_PROV_MICROBENCH || pr == GPU_PROV_MEASURED || pr == GPU_PROV_SAME_DIE) &&
	    tc_features(k, g, &f8) == 0) {
		double tf = tc_time(&f8, p, &mb16);
		if (tf > 0)
			t16 = tf;
	}
	if (t16 > 0 && t16 < t8) {
		if (mb)
			*mb = mb16;
		return t16;
	}
	return t8;
}

/* The FP8 tile-wave form without FP8 constants of its own (p->fp8.eff 0:
 * none of the fit's GEMMs is FP8, as when Hopper, the only architecture
 * with FP8 GEMMs in the data, is held out), on Hopper: the same waves of
 * 128 x 128 tiles, each running its whole K at eff_dt x the rule's width
 * term of the SM's peak with the prologue and epilogue of k0 steps, its
 * operands through the SM's share of the L2's best rate and all tiles'
 * through the L2, joined by mem_pow (the header's held-out paragraph says
 * why), no fitted feed limit and no power ramp (neither is informed
 * without FP8 GEMMs), the general bandwidth share and overhead.  Returns
 * -1 where it does not apply. */
static int tc8_general(const struct pred_kernel *k, const struct gpu_spec *g,
		       const struct tcgemm_params *p, struct tc8_feat *f8, struct tcgemm_fp8 *q)
{
	struct tc_feat f;
	if (p->fp8.eff > 0 || !g || gpu_cc_is_amd(g->cc) || g->cc / 10 != 9 ||
	    tc8_features(k, g, f8) < 0 || tc_features(k, g, &f) < 0 ||
	    !(tc_eff_dt(p, f.dt) > 0) || !(p->bw_eff > 0))
		return -1;
	memset(q, 0, sizeof(*q));
	/* A tile's own rate: the rule's width term alone, neither the MAMF
	 * figure nor the power term, which describe the whole GPU at full
	 * load; here the L2 terms stand for that load (the header says why). */
	double lw = log(p->mamf_1024) - p->rate_pow * f.log_width;
	q->eff = tc_eff_dt(p, f.dt) *
		 (p->mamf_1024 > 0 ? exp(lw < 0 ? lw : 0) : exp(tc_log_share(&f, p)));
	q->l2 = 1;
	q->l2_q = p->mem_pow;
	q->bw_eff = p->bw_eff;
	q->overhead_ns = p->overhead_ns;
	f8->k_peak_ns *= (f.k + p->k0) / f.k;
	return q->eff > 0 ? 0 : -1;
}

/* The FP8 form's time of k on g, its waves and whether memory bound:
 * fitted (tc8_bounded()) or from the general constants (tc8_general()).
 * Returns -1 where neither applies, and for a library that sizes its
 * tiles to the shape (tc_fills_sms()): the general form times it. */
static int tc8_form(const struct pred_kernel *k, const struct gpu_spec *g,
		    const struct tcgemm_params *p, double *t, int *mb, double *waves)
{
	struct tc8_feat f8;
	struct tcgemm_fp8 q;
	if (tc_fills_sms(k))
		return -1;
	if (p->fp8.eff > 0 && p->fp8.bw_eff > 0 && tc8_features(k, g, &f8) == 0) {
		*t = tc8_bounded(k, g, p, tc8_time(&f8, &p->fp8, mb), mb);
		*waves = f8.waves;
		return 0;
	}
	if (tc8_general(k, g, p, &f8, &q) == 0) {
		*t = tc8_time(&f8, &q, mb);
		*waves = f8.waves;
		return 0;
	}
	return -1;
}

double tcgemm_model_ns(const struct pred_kernel *k, const struct gpu_spec *g,
		       const struct tcgemm_params *p)
{
	struct tc_feat f;
	double t, waves;
	int mb;

	if (!p)
		p = &tcgemm_default_params;
	if (tc8_form(k, g, p, &t, &mb, &waves) == 0)
		return t;
	if (tc_features(k, g, &f) < 0 || !(tc_eff_dt(p, f.dt) > 0) || !(p->bw_eff > 0))
		return -1;
	return tc_time(&f, p, NULL);
}

double tcgemm_rate_flops(const struct gpu_spec *g, enum gpu_dtype dt,
			 const struct tcgemm_params *p)
{
	double in, outb;

	if (!p)
		p = &tcgemm_default_params;
	if (!g || tc_sizes(dt, &in, &outb) < 0 || g->cc < 70 || g->sms == 0)
		return 0;
	struct tc_feat f;
	double peak = roofline_peak_flops(g, dt);
	f.log_wpt = tc_log_wpt(g);
	f.log_width = tc_log_width(g);
	f.log_fig = tc_log_figure_dt(g, dt);
	f.log_clk = tc_log_ceiling(g);
	f.log_mx = log(gpu_matrix_eff(g));
	return peak > 0 ? peak * tc_eff_dt(p, dt) * exp(tc_log_share(&f, p)) : 0;
}

double tcgemm_mamf_rule(const struct gpu_spec *g, const struct tcgemm_params *p)
{
	if (!p)
		p = &tcgemm_default_params;
	if (!g || !(p->mamf_1024 > 0) || g->cc < 70)
		return 0;
	return exp(tc_log_rule(tc_log_width(g), tc_log_wpt(g), tc_log_ceiling(g), p));
}

double tcgemm_mamf_share(const struct gpu_spec *g, const struct tcgemm_params *p,
			 enum gpu_provenance *prov)
{
	if (prov)
		*prov = GPU_PROV_NONE;
	if (!p)
		p = &tcgemm_default_params;
	if (!g || !(p->mamf_1024 > 0) || g->cc < 70)
		return 0;
	enum gpu_provenance pr;
	double l = tc_log_figure(g, &pr);
	if (!isnan(l)) {
		if (prov)
			*prov = pr;
		return exp(l);
	}
	if (prov)
		*prov = GPU_PROV_RULE;
	return tcgemm_mamf_rule(g, p);
}

int tcgemm_predict(const struct pred_kernel *k, const struct gpu_spec *origin,
		   const struct gpu_spec *target, const struct tcgemm_params *p,
		   struct pred_result *out)
{
	struct tc_feat ft, fo;
	int mb;

	if (!p)
		p = &tcgemm_default_params;
	if (!out || tc_features(k, target, &ft) < 0)
		return -1;
	double t = tc_time(&ft, p, &mb), t8, w8;
	if (tc8_form(k, target, p, &t8, &mb, &w8) == 0)
		t = t8, ft.waves = w8;
	memset(out, 0, sizeof(*out));
	out->gamma = -1;
	out->method = PRED_ROOFLINE;
	out->memory_bound = mb;
	out->waves_target = ft.waves;
	out->roofline_ns = roofline_ns(k, target, NULL);
	out->ns = t;
	if (origin && k->origin_ns > 0) {
		if (tc_features(k, origin, &fo) < 0)
			return -1;
		out->waves_origin = fo.waves;
		double to = tcgemm_model_ns(k, origin, p);
		out->ns = to > 0 ? k->origin_ns * t / to : -1;
	}
	return out->ns > 0 ? 0 : -1;
}

/* ---- fitting --------------------------------------------------------- */

#define TC_MAXDIM NELDER_MAXDIM
#define TC_MAX_MAMF 32

/* One MAMF figure as a point of the rule: the GPU's width and watts per
 * TFLOP/s, the log of its measured share. */
struct tc_mamf_point {
	double log_width, log_wpt, log_clk, log_share;
	const struct gpu_spec *gpu;
};

/* The fit's parameter vector: log eff of each present dtype, then log k0,
 * wave_pow, pad_pow, (with a rule) log mamf_1024 and rate_pow, (when
 * fitted) log power_w_ref and power_pow (and with a rule
 * power_rate_pow), log bw_eff, log overhead_ns. */
struct tc_problem {
	const struct tc_feat *f;
	const double *w;          /* per-sample weight                    */
	const double *log_meas;
	size_t n;
	const struct tc_mamf_point *mp; /* the rule's MAMF points          */
	size_t nmp;
	double wmp;               /* the weight of each                   */
	int dts[GPU_DT_COUNT], ndt;
	int rule;                 /* fit the MAMF rule                   */
	int power;                /* fit the power term                  */
	int join;                 /* fit mem_pow                         */
	struct tcgemm_params base;
};

static void tc_unpack(const struct tc_problem *pr, const double *x, struct tcgemm_params *p)
{
	int i = 0;

	*p = pr->base;
	for (; i < pr->ndt; i++)
		p->eff[pr->dts[i]] = exp(x[i]);
	p->k0 = exp(x[i++]);
	p->wave_pow = x[i++];
	p->pad_pow = x[i++];
	if (pr->rule) {
		p->mamf_1024 = exp(x[i++]);
		p->rate_pow = x[i++];
	}
	if (pr->power) {
		p->power_w_ref = exp(x[i++]);
		p->power_pow = x[i++];
		if (pr->rule)
			p->power_rate_pow = x[i++];
	}
	p->bw_eff = exp(x[i++]);
	p->overhead_ns = exp(x[i++]);
	if (pr->join)
		p->mem_pow = exp(x[i]);
}

static void tc_pack(const struct tc_problem *pr, const struct tcgemm_params *p, double *x)
{
	int i = 0;

	for (; i < pr->ndt; i++)
		x[i] = log(tc_eff_dt(p, pr->dts[i]));
	x[i++] = log(p->k0 > 1e-3 ? p->k0 : 1e-3);
	x[i++] = p->wave_pow;
	x[i++] = p->pad_pow;
	if (pr->rule) {
		x[i++] = log(p->mamf_1024);
		x[i++] = p->rate_pow;
	}
	if (pr->power) {
		x[i++] = log(p->power_w_ref);
		x[i++] = p->power_pow;
		if (pr->rule)
			x[i++] = p->power_rate_pow;
	}
	x[i++] = log(p->bw_eff);
	x[i++] = log(p->overhead_ns > 1e-3 ? p->overhead_ns : 1e-3);
	if (pr->join)
		x[i] = log(p->mem_pow);
}

static double tc_loss(const struct tc_problem *pr, const double *x)
{
	struct tcgemm_params p;
	double s = 0;

	tc_unpack(pr, x, &p);
	/* Exponents outside 0..2 have no physical meaning, and pad_pow <
	 * wave_pow would make a GEMM faster when one more row adds tiles
	 * within the same number of waves: with e_pad = m n / (tiles T^2) and
	 * e_wave = tiles / (waves SMs) the compute time goes as
	 * (m n)^(1-pad_pow) tiles^(pad_pow-wave_pow) (waves SMs)^wave_pow,
	 * non-decreasing in the shape only when pad_pow >= wave_pow. */
	if (p.wave_pow < 0 || p.wave_pow > 2 || p.pad_pow < p.wave_pow || p.pad_pow > 2 ||
	    p.power_pow < 0 || p.power_pow > 2 || p.rate_pow < -1 || p.rate_pow > 1 ||
	    p.power_rate_pow < 0 || p.power_rate_pow > 1.5 || p.mamf_1024 > 1 ||
	    (pr->join && (p.mem_pow < 1 || p.mem_pow > 32)))
		return INFINITY;
	for (size_t i = 0; i < pr->n; i++) {
		double e = log(tc_time(&pr->f[i], &p, NULL)) - pr->log_meas[i];
		s += pr->w[i] * e * e;
	}
	for (size_t i = 0; i < pr->nmp; i++) {
		double e = tc_log_rule(pr->mp[i].log_width, pr->mp[i].log_wpt, pr->mp[i].log_clk,
				       &p) - pr->mp[i].log_share;
		s += pr->wmp * e * e;
	}
	return s;
}

/* nelder_mead()'s view of tc_loss(). */
static double tc_loss_cb(const double *x, void *ctx)
{
	return tc_loss(ctx, x);
}

/* The FP8 tile-wave fit: log eff, log feed_bpc, log bw_eff, log
 * overhead_ns, log w_ref, power_pow, log boost_ns, on the FP8 samples
 * (each GPU weighted equally). */
struct tc8_problem {
	const struct tc8_feat *f;
	const double *w, *log_meas;
	size_t n;
	struct tcgemm_fp8 base;
};

static void tc8_unpack(const double *x, struct tcgemm_fp8 *p)
{
	p->eff = exp(x[0]);
	p->feed_bpc = exp(x[1]);
	p->bw_eff = exp(x[2]);
	p->overhead_ns = exp(x[3]);
	p->w_ref = exp(x[4]);
	p->power_pow = x[5];
	p->boost_ns = exp(x[6]);
}

static double tc8_loss(const double *x, void *ctx)
{
	const struct tc8_problem *pr = ctx;
	struct tcgemm_fp8 p = pr->base;
	double s = 0;
	tc8_unpack(x, &p);
	if (p.eff > 1 || p.bw_eff > 1.2 || p.power_pow < 0 || p.power_pow > 2)
		return INFINITY;
	for (size_t i = 0; i < pr->n; i++) {
		double e = log(tc8_time(&pr->f[i], &p, NULL)) - pr->log_meas[i];
		s += pr->w[i] * e * e;
	}
	return s;
}

/* The index of gpu among the fit's first *ngpu GPUs, appended when new:
 * both fits weigh each GPU's samples by their count. */
static size_t sample_gpu(const struct gpu_spec **gpus, size_t *ngpu, const struct gpu_spec *gpu)
{
	size_t g = 0;
	while (g < *ngpu && gpus[g] != gpu)
		g++;
	if (g == *ngpu)
		gpus[(*ngpu)++] = gpu;
	return g;
}

static int tc8_fit(const struct tcgemm_sample *s, size_t n, struct tcgemm_fp8 *p)
{
	struct tc8_feat *f = calloc(n ? n : 1, sizeof(*f));
	double *w = calloc(n ? n : 1, sizeof(*w)), *lm = calloc(n ? n : 1, sizeof(*lm));
	const struct gpu_spec **gpus = calloc(n ? n : 1, sizeof(*gpus));
	size_t *cnt = calloc(n ? n : 1, sizeof(*cnt)), *gi = calloc(n ? n : 1, sizeof(*gi));
	size_t used = 0, ngpu = 0;
	int rc = 0;
	if (!f || !w || !lm || !gpus || !cnt || !gi) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (!(s[i].ns > 0) || tc8_features(&s[i].k, s[i].gpu, &f[used]) < 0)
			continue;
		size_t g = sample_gpu(gpus, &ngpu, s[i].gpu);
		cnt[g]++;
		gi[used] = g;
		lm[used++] = log(s[i].ns);
	}
	if (!used) {
		p->eff = 0;             /* nothing to fit: the general formula */
		goto out;
	}
	for (size_t i = 0; i < used; i++)
		w[i] = 1.0 / ((double)cnt[gi[i]] * (double)ngpu);
	struct tc8_problem pr = { .f = f, .w = w, .log_meas = lm, .n = used, .base = *p };
	struct tcgemm_fp8 st = *p;
	if (!(st.eff > 0) || st.eff > 1)
		st.eff = 0.9;
	if (!(st.feed_bpc > 0))
		st.feed_bpc = 48;
	if (!(st.bw_eff > 0) || st.bw_eff > 1.2)
		st.bw_eff = 0.7;
	if (!(st.overhead_ns > 0))
		st.overhead_ns = 4000;
	if (!(st.w_ref > 0))
		st.w_ref = 1.5;
	if (st.power_pow < 0 || st.power_pow > 2)
		st.power_pow = 0.5;
	if (!(st.boost_ns > 0))
		st.boost_ns = 5e4;
	double x[7] = {log(st.eff), log(st.feed_bpc), log(st.bw_eff), log(st.overhead_ns),
		       log(st.w_ref), st.power_pow, log(st.boost_ns)};
	nelder_mead_restarts(tc8_loss, &pr, x, 7, 0.3, 0.1, 4000, 4);
	tc8_unpack(x, p);
out:
	free(f), free(w), free(lm), free(gpus), free(cnt), free(gi);
	return rc;
}

/* The MAMF figures measured on the NVIDIA GPUs themselves (not another
 * board of the die), none of the nexclude compute capabilities exclude_cc,
 * as points of the rule; up to max.  Returns their count. */
static size_t tc_mamf_points(const uint32_t *exclude_cc, size_t nexclude,
			     struct tc_mamf_point *mp, size_t max)
{
	size_t ng, n = 0;
	const struct gpu_spec *all = gpu_all(&ng);
	for (size_t i = 0; i < ng && n < max; i++) {
		struct gpu_figure_value v;
		const struct gpu_spec *g = &all[i];
		if (gpu_cc_is_amd(g->cc) || gpu_cc_in(g->cc, exclude_cc, nexclude) || g->cc < 70 ||
		    gpu_figure(g, GPU_FIG_MAMF_BF16, 0, &v) != GPU_PROV_MICROBENCH ||
		    !v.from || strcmp(v.from, g->id) || !(v.value > 0))
			continue;
		mp[n].log_width = tc_log_width(g);
		mp[n].log_wpt = tc_log_wpt(g);
		mp[n].log_clk = tc_log_ceiling(g);
		mp[n].log_share = log(v.value);
		mp[n++].gpu = g;
	}
	return n;
}

int tcgemm_fit(const struct tcgemm_sample *s, size_t n, const uint32_t *exclude_cc,
	       size_t nexclude, struct tcgemm_params *p, double *rms_log)
{
	struct tc_mamf_point mp[TC_MAX_MAMF];
	struct tc_problem pr;
	struct tc_feat *f;
	double *w, *lm;
	const struct gpu_spec **gpus;
	size_t *cnt, ngpu = 0, used = 0;
	int present[GPU_DT_COUNT] = {0};

	if (!s || !p || n == 0)
		return -EINVAL;
	if (p->fp8.eff > 0) {
		int r8 = tc8_fit(s, n, &p->fp8);
		if (r8 < 0)
			return r8;
	}
	f = calloc(n, sizeof(*f));
	w = calloc(n, sizeof(*w));
	lm = calloc(n, sizeof(*lm));
	gpus = calloc(n, sizeof(*gpus));
	cnt = calloc(n, sizeof(*cnt));
	if (!f || !w || !lm || !gpus || !cnt) {
		free(f), free(w), free(lm), free(gpus), free(cnt);
		return -ENOMEM;
	}
	/* Usable samples, and how many each GPU has. */
	size_t *gi = calloc(n, sizeof(*gi));
	if (!gi) {
		free(f), free(w), free(lm), free(gpus), free(cnt);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (!(s[i].ns > 0) || tc_features(&s[i].k, s[i].gpu, &f[used]) < 0)
			continue;
		size_t g = sample_gpu(gpus, &ngpu, s[i].gpu);
		cnt[g]++;
		gi[used] = g;
		lm[used] = log(s[i].ns);
		/* A dtype with no efficiency of its own shares FP16's. */
		present[p->eff[f[used].dt] > 0 ? f[used].dt : GPU_DT_FP16] = 1;
		used++;
	}
	int rc = -EINVAL;
	if (used > 0) {
		/* Each GPU of the data and each MAMF point weigh alike. */
		size_t nmp = p->mamf_1024 > 0 ? tc_mamf_points(exclude_cc, nexclude, mp, TC_MAX_MAMF) : 0;
		double wg = 1.0 / (double)(ngpu + nmp);
		for (size_t i = 0; i < used; i++)
			w[i] = wg / (double)cnt[gi[i]];
		memset(&pr, 0, sizeof(pr));
		pr.f = f, pr.w = w, pr.log_meas = lm, pr.n = used, pr.base = *p;
		pr.mp = mp, pr.nmp = nmp, pr.wmp = wg;
		pr.rule = p->mamf_1024 > 0;
		if (pr.rule && pr.base.mamf_1024 > 1)
			pr.base.mamf_1024 = 0.9;
		if (pr.base.rate_pow < -1 || pr.base.rate_pow > 1)
			pr.base.rate_pow = 0;
		if (pr.base.power_rate_pow < 0 || pr.base.power_rate_pow > 1.5)
			pr.base.power_rate_pow = 0;
		if (!(pr.base.eff[GPU_DT_FP16] > 0))
			pr.base.eff[GPU_DT_FP16] = 0.7;
		if (!(pr.base.bw_eff > 0))
			pr.base.bw_eff = 1;
		pr.power = pr.base.power_w_ref > 0;
		pr.join = pr.base.mem_pow > 0;
		if (pr.join && (pr.base.mem_pow < 1 || pr.base.mem_pow > 32))
			pr.base.mem_pow = 4;
		if (pr.base.power_pow < 0 || pr.base.power_pow > 2)
			pr.base.power_pow = 0;
		/* Start inside the feasible region of tc_loss(). */
		if (pr.base.wave_pow < 0 || pr.base.wave_pow > 2)
			pr.base.wave_pow = 0.5;
		if (pr.base.pad_pow < pr.base.wave_pow || pr.base.pad_pow > 2)
			pr.base.pad_pow = pr.base.wave_pow;
		for (int dt = 0; dt < GPU_DT_COUNT; dt++)
			if (present[dt])
				pr.dts[pr.ndt++] = dt;
		int d = pr.ndt + 5 + 2 * pr.rule + 2 * pr.power + (pr.rule && pr.power) + pr.join;
		double x[TC_MAXDIM];
		tc_pack(&pr, &pr.base, x);
		double loss = nelder_mead_restarts(tc_loss_cb, &pr, x, d, 0.5, 0.1, 4000, 4);
		tc_unpack(&pr, x, p);
		if (rms_log)
			*rms_log = sqrt(loss);
		rc = 0;
	}
	free(f), free(w), free(lm), free(gpus), free(cnt), free(gi);
	return rc;
}
