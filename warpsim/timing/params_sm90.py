"""sm_90 (H100 SXM/HBM3, 1980 MHz) timing table, calibrated to ``traces/h100/timing/*.npz``.

Evidence notation: ``T/<file>:<kernel>`` is a timing trace and kernel; "1w ILPn" the 1-warp run at ILP n,
"slope" the cycles per instruction between reps 4 and 32 (median of the non-first launches), "trip" the
cycles of one 8-step loop trip. ``S/<file>`` is recorded SASS in ``traces/h100/sass``; ``P/<kernel>`` is
SASS of the recorded PTX made here with ptxas 13.0.88 (the version that made the recorded cubins) and
cuobjdump 13.5. ``A/<form> <variant>`` is a run in ``traces/h100/arbitration.json`` (the recorded ILP4
kernel with the warps' arrival or the loop end changed; traces/capture/arbitration.py). Values marked [lit]
come from the literature (shared/reference/anchors.md §3), not from these traces: they only set the
prologue/epilogue of the traced kernels.
"""

TABLE = {
    "arch": "sm_90",
    "calibration": "H100 clock64 traces (traces/h100/timing), 1980 MHz",
    "clock_mhz": 1980.0,
    "issue": {
        # one CTA's warps are spread over 4 sub-partitions by warp id mod 4: T/*:<k>_ilp4 with 5 warps —
        # warps 0 and 4 take 2x as long (12357 vs 6639 cycles), warps 1-3 do not (sp_f16_k16_f32, dense_*).
        "subpartitions": 4,
        "sms": 132,
        # each sub-partition issues at most one instruction per cycle. Greedy, then loose round-robin: the
        # warp that issued last goes on while it can issue as early as any other; otherwise the ready warps
        # are taken in round-robin order after it. T/*:ilp4 with 2 and 3 warps on one sub-partition finish
        # within 2% of each other (12357/12582, 18201/18574/18351: fair), and pipe-bound pairs lose no cycles
        # to simultaneous trip-end drains (T/dense_f16_k16_f32:ilp4 warps 8 = 12332 = 2 x 32 x 32 x 6 + 44;
        # strict alternation would add ~18 per trip).
        "policy": "greedy-lrr",
        # a result of the ALU pipe (class alu) read first by an IMAD (mul, mul_wide), or an IMAD's read first by
        # the ALU, comes a cycle later (analysis._pipe_crossings): op_latency's xor + add chain (LOP3.LUT, IMAD.IADD)
        # 5.03 cycles an instruction, the ALU's own chains 4.07, and ptxas's stall counts 5 across (LOP3 ->
        # IMAD.WIDE, IADD3 -> IMAD.X) and 4 along. Which pipe ptxas puts an add on (IADD3 or IMAD.IADD) the engine
        # does not know, so only the classes say. With it the block reduction's 4-warp runs -6.2 / -2.4 -> -0.3 /
        # -0.3 %, gmem_rate's one- and two-warp stores -5.7 / -6.4 -> -3.6 / -4.3 %, the recorded native table
        # within 5 % (mean error 0.814 -> 0.815 %), the GEMMs within 0.5 points.
        "pipe_crossing": 1.0,
        # the instruction after a taken branch issues ``branch_taken`` cycles after the branch (its redirect),
        # and no earlier than its warp's tensor ops drain (``drain_at_target`` below), so in the plain loops the
        # redirect hides behind the mma chain (ptxas puts the BRA right after the last HMMA): T/sp_f16_k16_f32:
        # ilp1 trip = 134 = 8 x 16.75 and T/dense_f16_k16_f32:ilp1 trip = 192 = 8 x 24 at any value up to 15.
        # Where the branch comes late, the redirect shows: the H100's store-free trips kernels (clock xor-ed into
        # a register, traces/h100/trips/store_sharing.json) take 47-50 cycles from the last mma to the next
        # trip's first in all three forms, whatever the mma latency (16.75 / 24), their SASS tail's stall counts
        # about 29; on the H200 a loop of a clock read, its xor and two branches (one taken) takes 60 cycles a
        # trip on average, 39 at least (traces/h200/clock_read.json, clock_loop_0). Fitted together with
        # store_read and store_read_other below over the 867 native configurations and the store variants:
        # 12 / 17 / 12 keeps the 867 within 5 % (mean error 0.77 %, 0.76 % with the drain at the branch and no
        # redirect) and puts the store variants at a mean error of 2.9 % (3.9 %; 17 of their 105 runs outside 5 %
        # against 32), the clock loop at 56 cycles (44). 14 / 15 / 12: the same within 5 %, mean 0.78 %; 18 / 15:
        # sparse k16 ILP 2 with one warp 5.2-6.7 % long (its chain's next mma waits 16.75 after the last one's
        # issue, less than the branch and its redirect); 22: 831 of the 867.
        "branch_taken": 12.0,
        # a branch's next instruction waits for the warp's in-flight tensor ops (fixed stall counts do not
        # cross a block boundary; S/timing_sp_f16_k16_f32_ilp1.sass: HMMA.SP has no scoreboard, stall 15 + NOP).
        # Sets the per-trip overhead of the pipe-bound runs: dense ILP n trip = 48n + 18 = 48n + (24 - 6)
        # (T/dense_*:ilp4..8, 210/258/306/354/402), sparse k32 64n + 16 = 64n + (24 - 8)
        # (T/sp_f16_k32_f32:ilp4..8, 272..528), and the latency-bound ILP2/3 dense trips 198/204 (+6/+12).
        "drain_tensor_at_branch": True,
        # ... at the branch's target, not at the branch: the branch issues and its redirect runs while the mma
        # drain (with the branch waiting for the drain and then paying its redirect, branch_taken 20 put the plain
        # kernels up to 19 % long: 366 of the 867 native configurations within 5 %).
        "drain_at_target": True,
        # ... and the loop's first mma issues in the cycle the last one's result is written (the branch's target
        # one cycle after the drain less this): ILP1 trips are exactly 8 x latency (134.0 = 8 x 16.75,
        # T/sp_*_k16*:ilp1; 192.0 = 8 x 24, T/dense_*:ilp1, T/sp_*_k32*:ilp1), and 48n + 18 is last-mma issue + 24.
        "drain_slack": 1.0,
        # a conditional branch issues at least 13 cycles after the instruction that set its predicate: every
        # timing kernel's prologue has ISETP.GE.AND P0 with stall count 13 right before @!P0 BRA
        # (P/*_ilp*: ISETP ... S13, BRA).
        "predicate_to_branch": 13.0,
        # a store reads its source registers 17 cycles after it issues, and ptxas makes the branch that ends
        # its block wait for that read (a read barrier; P/trips_*: the loop's ``@!P0 STG`` sets SB1, and
        # ``@!P1 BRA`` waits on it). With the branch's redirect (branch_taken) it sets the per-trip clock
        # store's cost: 1-warp trips of the trips kernels are 41.75 / 39 / 42 cycles from the last mma to the
        # next trip's first (k16, dense, k32: T/trips_*: ilp1 warps 1; 42 / 39 / 39 at ilp4), the mma, clock,
        # IMAD, IADD, STG, ISETP and BRA stall counts give 26 and 29. 28 with no redirect had every 1-warp trips
        # run (ILP 1, 2, 4) within 2.2 %, but the store-free variants 4.5-11 % short (the table put the trip's
        # cost on the store, which they do not have).
        "store_read": 17.0,
        # ... and a global store reads them ``store_read_other`` cycles later still per other warp of its
        # sub-partition with a tensor op in flight when it issues or issuing one before the read (the read
        # waits behind their operand traffic). H100, traces/h100/trips/store_sharing.json (the ILP-1 trips
        # kernels re-run with only the trip's store changed; traces/capture/store_sharing.py): with 2, 3, 4
        # warps per sub-partition the dense STG kernel's trip grows 19.5 / 34.8 / 59.6 cycles over one warp's,
        # the same loop without the STG (clock xor-ed into a register) 10.3 / 18.6 / 31.6, with an STS
        # instead 7.3 / 15.3 / 28.5: the global store alone costs 9.2, 8.1, 9.3 cycles a trip per other warp
        # (k16 sparse 9.7, 6.2, 5.0; k32 6.7, 3.9, 6.4), which the model did not have; its STS trips grow like
        # the H100's (k16 sparse +5 / +20 / +66 vs +8 / +23 / +63). The STG predicated off in every lane costs
        # most of it (k16, k32 within 4 cycles a trip of the storing one): the instruction, not the traffic.
        # Other warps that run no tensor op (spinning on IMADs or clock reads) slow the STG kernel no more
        # than the STG-free one (-5..+5 cycles a trip). 10 (one value for all forms) put the 11 ILP-1 trips
        # runs with 2-4 warps per sub-partition that were 6-13 % short (T/trips_*:ilp1 warps 8..16) within
        # 4.3 %; with the store read at 17 and the branch's redirect (above) 12 keeps all 39 trips runs within
        # 5 % (10: T/trips_sp_f16_k32_f32:ilp1 warps 16 6.1 % short; 8: 7.5 %).
        "store_read_other": 12.0,
        # ``store_pipe``: a global store holds its sub-partition's tensor pipe, when it issues, for this many times
        # the ii of the op the pipe took last, after that op (H100, traces/h100/trips/store_sharing.json run by
        # warpsim from the same PTX, warpsim.timing.store_sharing: in the ``split`` runs, one storing warp a
        # sub-partition, the store-free warps beside it are 6-12 cycles a trip slower than without the store, in
        # every form). The H100's trips kernels with 16 warps leave their first trip 80-212 cycles apart and keep
        # their trip (T/trips_sp_f16_k32_f32:ilp1 warps 16: 316-318 cycles, the warps 212-485 apart); with the
        # L1's data path taking a fill's wavefronts and its tag stage every request (memory below) the replay's
        # warps leave it as far apart (200), and out of step the other warps fill the pipe while one stores: that
        # trip 285 cycles with 0, 291 / 303 / 316 with 1.0 / 1.25 / 1.5 (dense 260 / 272 / 274 / 270, the H100's
        # 260; sparse k16 236 / 242 / 244 / 252, 235). Fitted with the rest of the 2026-11-29 refit over the 867
        # native configurations (TIMING_FINDINGS.md, "A request for a line being filled"): 1.25 puts all 867
        # within 5 % (1.0: the k32 trips with 16 warps 5.7 % short; 1.5: two trips runs 5.5-5.8 % long).
        "store_pipe": 1.25,
        # several warps on one tensor pipe: the pipe takes an op from another warp than its last one
        # ``switch`` cycles later than its ii, and an op completes ``inflight_other`` cycles later per tensor op
        # of another warp in flight on the pipe when it issues (operand/writeback sharing). Fitted together to the
        # ILP1 runs with 2..16 warps (T/sp_f16_k16_f32, dense_f16_k16_f32, sp_f16_k32_f32: ilp1 warps 2..16,
        # reps 32), where one warp per sub-partition runs at 16.75 / 24 per mma and 2, 3, 4 warps per
        # sub-partition at 17.45, 19.4, 25.4 (k16 sparse) per mma and warp. Refitted 2026-11-29 when the L1's
        # data path came to take the fills' wavefronts (memory below: the prologues, longer and the warps apart as
        # on the H100, had hidden ~3 % of the loop in the dense ILP 1 runs with 9-16 warps): ``switch`` 0.5 -> 0.25,
        # ``inflight_other`` 0.75 -> 0.6 (0.5 / 0.6 with 0.25 / 0.5 screened: 0.5 leaves the sparse k32 trips with
        # 16 warps 8.9 % short, 0.5 switch the dense ILP 1 runs with 16 warps 5.2 % long).
        # ``switch_fresh``: the switch costs only an op whose operands were written less than 16 cycles before
        # the pipe frees for it (at ILP1 its accumulator, 0..8 cycles before with 4 warps per sub-partition),
        # in proportion to its accumulator registers (``switch`` for ``switch_regs`` = 4, f32/s32): the
        # 2-register f16 accumulators run 4.6% / 3.6% faster than f32 with 4 warps per sub-partition on the same
        # pipe (T/sp_f16_k16_f16 vs sp_f16_k16_f32: ilp1 warps 16, 6522 vs 6838; T/sp_f16_k32_f16 vs
        # sp_f16_k32_f32: 8937 vs 9268).
        # Warps that take turns at ILP4 read accumulators written 24+ cycles earlier and lose nothing: 2 and 3
        # warps per sub-partition run at the tensor ii (T/dense_f16_k16_f32:ilp4 warps 8 = 12332 = 2 x 1024 x 6
        # + 44; warps 12: 575 per trip = 3 x 32 x 6).
        # ``aging``: a warp whose tensor op has waited 20 cycles for the pipe (since it could issue but for the
        # pipe) is served before the others, the highest warp slot of the sub-partition first; otherwise the
        # issue ``policy`` above. With 4 warps per sub-partition at ILP4 the warps take turns; on an ii-8 pipe two
        # of them have waited 31 and 23 cycles at each turn, so slot 0 is always passed over and runs only
        # after the other three finish (T/sp_*_k32*, sp_s8_k64, sp_tf32_k16_f32: ilp4 warps 13..16, warps 0..3
        # take ~33,700 cycles, the others ~25,000; whatever the arrival: A/sp_f16_k32_f32 align, stag, late:
        # slot 0 ~34,000), while on an ii-6 pipe only the next in turn has waited 23 (the one after it 17) and
        # all four share (T/sp_*_k16*:ilp4 warps 16, 24,600 each; A/sp_f16_k16_f32 align, stag, late). Any
        # value in (17, 23] separates them; 20 is the middle.
        # ``aging_nonyield``: 17 (the wait of each of 3 warps taking turns on an ii-6 pipe, 3 x 6 - 1) where
        # ptxas left a non-tensor instruction without the yield flag in the kernel's loop (control bit 45;
        # warpsim/timing/loop_yield_sm90.json, sass_profile.nonyield_loop; native forms only), so that on the
        # ii-6 pipes too the three higher slots keep their turns and slot 0 waits. The H100 starves slot 0 in
        # exactly those loops: the recorded dense f32-accumulator ILP4 kernels (``UIADD3 S4 y0, UISETP S1 y1,
        # PLOP3 S1 y1`` among the first HMMAs; T/dense_{f16_k16_f32,bf16_k16_f32,s8_k32,tf32_k8_f32}:ilp4
        # warps 13..16: warps 0..3 ~25,400, the others ~18,500), the per-trip clock kernels (CS2R, VIADD, STG,
        # BRA y1; T/trips_dense_f16_k16_f32, trips_sp_f16_k16_f32:ilp4 warps 16), the k32 sparse loops
        # (``ISETP S1 y1``; A/sp_f16_k32_f32 every variant), A/* gap (S2UR/NOP/BRA y1) and A/* rec (UISETP/
        # USEL y1); every loop with yielding non-tensor instructions only shares: ``UIADD3 S5 y0, ISETP S5 y0``
        # (T/dense_f16_k16_f16, sp_*_k16*:ilp4 warps 16; A/dense_f16_k16_f32 align, stag, late -- the
        # arbitration variants that share fairly do so because the code added before the loop makes ptxas
        # schedule its head differently, not because of the warps' arrival; P/ of ``arbitration.py
        # --ptx-only``). Not modelled: with the rec instructions the H100 does not always pass slot 0 over
        # entirely (A/dense_f16_k16_f32 rec, warps 16: slot 0 runs 1344 cycles a trip, the others 672).
        # ``aging_cap``: with ``aging_nonyield`` a warp keeps that precedence only while it has waited at most 40
        # cycles; one passed over longer than that has none (the issue ``policy`` alone) until it issues. The
        # H100 gives a long-starved warp no turn while the others keep the pipe: T/trips_dense_f16_k16_f32
        # ilp4 warps 16 (per-trip clocks), launch 0: warps 4 and 8 alternate alone (~420 cycles a trip, 2 x
        # 32 x 6 + loop end; each waits 11 between turns) from cycle ~200 to ~3,000 while warps 0 and 12 wait
        # (12's first trip ends at 3,460; warps 1/13 the same beside 5/9), and at 16 warps the starved slot 0
        # takes almost nothing until the other three finish (T/dense_{f16,bf16}_k16_f32, s8_k32,
        # tf32_k8_f32:ilp4 warps 16: the others end at 18,020..19,170, 3 x 1024 x 6 = 18,432 plus their start;
        # slot 0 runs 6,320..6,745 cycles after the last of its sub-partition's others, one warp alone 6,802 --
        # at most ~70 of its 1,024 tensor ops came before). Without the cap the replay's slot 0
        # wins each drain at the others' loop ends as the only aged warp (182 tensor ops in the first 18,000
        # cycles; with it 32, 11 of them at its start) and those runs were 5.1-5.9 % long (now within
        # 2.3 %; 13..15 warps from 2.5..5.0 % to 1.1..1.8 %). Lower bound: the rotating warps
        # of the ii-8 k32 loops wait up to 31 (4 x 8 - 1) at a loop end (cap 25: T/sp_f16_k32_f32,
        # sp_s8_k64:ilp4 warps 16 6.5 % long; 30: warps 13 3 % short; 32..100 the same within 0.1 %); upper:
        # 300 lets slot 0 back in at the loop ends (T/trips_dense_f16_k16_f32:ilp4 warps 16 3.9 % long, 1.7 %
        # at 40). Only the non-yielding loops have the evidence, so only they have the cap; the yielding ones
        # share fairly and need none (a cap of 26 there starves a warp the H100 serves, T/sp_f16_k16_f32:ilp4
        # warps 16 16 % short; with 40, T/sp_f16_k16_f32, sp_s8_k32, dense_f16_k16_f16:ilp4 warps 13, 16 run
        # exactly as without it).
        "tensor_sharing": {"switch": 0.25, "switch_regs": 4, "switch_fresh": 16.0, "inflight_other": 0.6,
                           "aging": 20.0, "aging_nonyield": 17.0, "aging_cap": 40.0},
        # bar.sync: the CTA's barrier unit takes one arrival every ``per_warp`` cycles and releases the warps
        # ``release`` cycles after it took the last (traces/h200/op_latency.json, warpsim.timing.op_latency: every
        # warp of a CTA of 1, 2, 4, 8, 16 runs 16 bar.sync back to back, one every 14.0 / 16.0 / 20.0 / 27.9 / 43.8
        # cycles, a line of 12.02 + 1.988 a warp (barrier_fit); the table's give those within 1.1 %). It had been
        # the literature's flat 20 (16 warps: 23 cycles).
        "barrier": {"release": 12.0, "per_warp": 2.0},
        # ptxas makes bar.sync a BAR.SYNC.DEFER_BLOCKING: a warp that has arrived goes on issuing the classes
        # below and waits for the release only at its next instruction of another class (traces/h200/
        # bar_defer.json, warpsim.timing.bar_defer: warps arriving ~900 cycles apart, the first ones' clock read
        # after the bar.sync 2 cycles later, 4 dependent xor+add 38, an mma 13-14; an ld/st.shared, ld.global,
        # shfl.sync, a taken branch and another bar.sync wait for the last warp). Not measured, so waiting: div
        # (its SASS branches around a slow path), exit, the memory and async classes.
        "barrier_defer": ["alu", "fma", "mul", "mul_wide", "cvt", "special", "clock32", "tensor"],
    },
    "units": {
        # 16 INT32 lanes per sub-partition [lit: H100 whitepaper]. op_latency.json: 8 independent mad.lo.u32
        # (IMAD) take 15.9 cycles, 2 each; xor.b32 + add.u32 (LOP3 + IMAD.IADD: ptxas sends the adds to the FMA
        # pipe) issue about one a cycle (17.4 for 16; with 4 warps on a sub-partition 67.4 for 64). Kept at 2:
        # with 1 (mad 2) the native configurations' mean error grows from 0.80 to 0.86 %, all within 5 %.
        "int": {"ii": 2.0, "scope": "sp"},
        "fp": {"ii": 1.0, "scope": "sp"},      # 32 FP32 lanes [lit]; op_latency.json: 8 independent FFMA 7.9 cycles
        "sfu": {"ii": 8.0, "scope": "sp"},     # 4 SFU lanes per sub-partition [lit]
        "branch": {"ii": 1.0, "scope": "sp"},
        "tensor": {"ii": 1.0, "scope": "sp"},  # per-form ii below; this entry is only the unit's name
        # memory instructions queue per sub-partition (MIO): one per cycle [lit], a 32-lane global load every
        # 4 cycles (class mem_global below). Per sub-partition, not per SM: with 16 warps at ILP1 the clock
        # reads that follow each warp's 4 C loads spread over 62 cycles (= 4 warps x 4 LDG x 4 on one
        # sub-partition; T/sp_f16_k32_f32:ilp1 warps 16, starts 0..62), not 256 (16 x 4 x 4 on one SM).
        "mio": {"ii": 1.0, "scope": "sp"},
    },
    "classes": {
        # The latencies below marked op_latency are a dependent chain's cycles an instruction on the H200
        # (traces/h200/op_latency.json, warpsim.timing.op_latency.latency: one warp, 16 steps a trip).
        # alu: the ALU pipe's dependent instructions: op_latency 4.07 (lop3.b32 -> lop3.b32, LOP3.LUT; setp -> selp,
        # ISETP -> SEL). A result passed between the ALU and FMA pipes takes 5.03 an instruction (xor.b32 then
        # add.u32: LOP3.LUT, IMAD.IADD, ptxas putting the add on the FMA pipe; cvt.rn.f16.f32 then cvt.f32.f16:
        # F2FP, HADD2.F32), which the engine does not know of: with 4.875 for all, two native configurations go
        # past 5 % (trips_dense_f16_k16_f32 ILP 1 with 16 warps +5.6 %, sp_f16_k16_f16 ILP 2 +5.1 %). Two dependent
        # add.u32 are one IADD3 (2.0 an add: analysis._fused, with ptxas's other one-instruction pairs).
        "alu": {"unit": "int", "latency": 4.0},
        "fma": {"unit": "fp", "latency": 4.0},      # dependent FFMA: op_latency 4.00
        # IMAD: op_latency's dependent chain 4.00 cycles; 8 independent ones 15.9 (one every 2 cycles). Hopper runs
        # it on the FMA pipe, not beside the ALU work; on the fp unit (ii 2) traces/h200/reduce_clock.json's 8 and
        # 16 warps come within 2 % (on the int unit 4-11 % long), but the fitted out-of-sample checks move past their
        # bounds (the 8-warp GEMM -2.8 -> -4.2 %, gmem_rate's two-warp stores -5.7 -> -6.4 %, the trips kernels'
        # first-trip spread, the shared-store variant 4.5 -> 6.5 %) and the native mean error grows 0.800 ->
        # 0.821 %; kept on the int unit until those are refitted with it. Screened again with ptxas's pairs fused
        # (analysis.FUSED, IMAD and IMAD.WIDE both on the fp unit): the reduction's six runs -6.2 to 0.0 % (on the
        # int unit -6.2 to +9.4 %), the native mean 0.811 % (0.814 %), the GEMMs -1.7 / +3.6 / +5.3 / -8.3 %
        # (-1.1 / +4.2 / +6.1 / -6.4 %), and still the shared-store variant with 16 warps -6.1 %, the two-warp
        # stores -6.4 %, l1_hit's 16 warps' span and op_latency's IMAD.WIDE streams and chase with 8 warps 9 % short.
        "mul": {"unit": "int", "latency": 4.0},
        # IMAD.WIDE (mul.wide, mad.wide, and mul.wide + add.s64: analysis.FUSED). op_latency's dependent chain
        # (mul.wide.u32 of the last result's low word + add.s64 on it, through both words) takes 8.25 cycles a step,
        # 8.8 counted as the other chains are (the trip less the clock reads over 15: a chain's last result is not
        # waited for); its chase, an IMAD.WIDE computing each ld.global's address from the last value, about 9.
        # ptxas's stall counts say 4-6. The table takes 8, the two dependent 4-cycle instructions this pair had been
        # timed as: at 8.25 and more trips_dense_f16_k16_f32 ILP 1 with 16 warps goes past 5 % (+5.4 / +5.5 % at
        # 8.25 / 8.8, +0.9 % at 8: a configuration whose four warps a sub-partition move in lockstep by 12 cycles a
        # trip for a quarter cycle here). 8 independent ones: 48.1 cycles with one warp, 64.3 with two warps on each
        # sub-partition, 114.6 with four: one every 4 cycles of the sub-partition's pipe (a lone warp gets one
        # every 6, which the engine does not know of).
        "mul_wide": {"unit": "int", "latency": 8.0, "ii": 4.0},
        # div.rn.f32: MUFU.RCP, FCHK, five FFMA and a branch around the slow path: op_latency 60.87 (the
        # literature's rough 40 had stood here)
        "div": {"unit": "sfu", "latency": 60.87},
        # an integer <-> float cvt (I2F / F2I): op_latency 11.35 (cvt.rn.f32.s32 then cvt.rzi.s32.f32); the
        # other conversions are class alu (isa.semantics.convert: F2FP, HADD2.F32, a move or a shift)
        "cvt": {"unit": "int", "latency": 11.35},
        # a special-register read (S2R: %tid, %laneid, ...) [lit: 6]. An S2R takes 22 cycles to its result
        # (traces/h100/chain_latency.json, a predicated S2R chain), but ptxas hoists the kernel's S2Rs to its first
        # instructions, beside the parameter loads, where the engine keeps PTX order: with 22 the H200's
        # gmem_rate one- and two-warp store runs go from 5-6 % to 11-12 % short and the recorded table moves
        # within noise (native mean error 0.800 -> 0.803 %), so 6 stands for the S2R as ptxas places it.
        "special": {"unit": "int", "latency": 6.0},
        # a 32-bit %clock read that only arithmetic reads: ptxas reads the (uniform) clock with S2UR for them to
        # take as a uniform operand, and they wait for it on the scoreboard (a read a store takes is a CS2R.32,
        # fast: traces/h200/spgemm_phase.json's stamps; %clock64 a CS2R; analysis._uniform_clock_reads).
        # traces/h200/branch_tail.json (warpsim.timing.branch_tail): one mma, the clock read and 1-4 multiply-adds
        # on its value take 62-64 cycles a trip against 27 with the read's value unused (ptxas drops the read),
        # the multiply-adds after the fourth 4-4.5 cycles each: the value is usable about 34 cycles after the read
        # (27 = the mma, the ISETP, its 13 cycles to the BRA and the redirect); 34 puts the tails of 6-12
        # multiply-adds within 2.5 % (without it 12-36 % short).
        "clock32": {"unit": "int", "latency": 34.0},
        # ld.param -> LDC (constant cache hit) [lit: ~30 on Volta..Hopper]; traces/h100/chain_latency.json's chase
        # through a constant table takes 28 a step, which moves the native configurations within noise (mean error
        # 0.800 -> 0.796 %) and the H200's gmem_rate two-warp store run from 5.7 to 6.4 % short; kept at 30. With
        # the L1 hit latency below it sets the 93-cycle prologue of the 1-warp ILP>=2 runs (clock read -> LDC reps
        # -> ISETP -> BRA -> A/B/E loads that hit -> first mma; T/sp_*_k16*:ilp2..4 reps 4), which fixes only their
        # sum.
        "mem_param": {"unit": "mio", "latency": 30.0},
        # ld.global: latency from the L1 model ("memory" below); this entry is the fallback without it.
        # A 32-lane LDG issues every 4 cycles (ptxas's stall count 4 between the LDGs of every timing kernel,
        # P/*: LDG.E ... S4) on the sub-partition's MIO queue.
        "mem_global": {"unit": "mio", "latency": 350.0, "ii": 4.0},
        # LDS: a chase through shared memory, each lane on its own bank: op_latency 23.0 ([lit: ~29-33] before)
        "mem_shared": {"unit": "mio", "latency": 23.0},
        # LDL, an L1 hit: traces/h100/chain_latency.json's chase through local lines, 29 cycles a step ([lit: 40]
        # before; no recorded kernel's PTX has a local access: ptxas's spills are timed by sass_sim)
        "mem_local": {"unit": "mio", "latency": 29.0},
        # shfl.sync: a dependent SHFL 24.1 cycles with 1-16 warps (traces/h100/chain_latency.json, the H100's)
        "shfl": {"unit": "mio", "latency": 24.0},
        "branch": {"unit": "branch", "latency": 1.0},
        "barrier": {"unit": "branch", "latency": 1.0},
        "tensor": {"unit": "tensor", "latency": 24.0},   # only for forms without a group below
        "tmem": {"unit": "mio", "latency": 30.0},
        "async": {"unit": "mio", "latency": 30.0},
        "exit": {"unit": "branch", "latency": 1.0},
    },
    "tensor": {
        # HMMA.SP.16816 / IMMA.SP.16832 class (S/timing_sp_f16_k16_f32_ilp1.sass: HMMA.SP.16816.F32).
        # latency: 1w ILP1 slope 16.74-16.76 in T/sp_{f16_k16_f16,f16_k16_f32,bf16_k16_f32,tf32_k8_f32,
        # s8_k32,s8_k32_sat,legacy_f16_k16_f32,legacy_s8_k32}:ilp1 (the hardware averages 16/17; kept
        # fractional). ii: pipe-bound trips 48n + 12 for n = 3..8 (T/sp_f16_k16_f32:ilp3..8: 156..396).
        # legacy .sp and ::ordered_metadata time the same (T/sp_legacy_f16_k16_f32 = T/sp_f16_k16_f32).
        "sparse_k16": {"latency": 16.75, "ii": 6.0, "forms": [
            "m16n8k16.f16.f16.f16.f16", "m16n8k16.f32.f16.f16.f32", "m16n8k16.f32.bf16.bf16.f32",
            "m16n8k8.f32.tf32.tf32.f32",
            "m16n8k32.s32.s8.s8.s32", "m16n8k32.s32.s8.s8.s32.satfinite", "m16n8k32.s32.s8.u8.s32",
            "m16n8k32.s32.s8.u8.s32.satfinite", "m16n8k32.s32.u8.s8.s32", "m16n8k32.s32.u8.s8.s32.satfinite",
            "m16n8k32.s32.u8.u8.s32", "m16n8k32.s32.u8.u8.s32.satfinite"]},
        # HMMA.SP.16832 / IMMA.SP.16864 class (P/sp_f16_k32_f32_ilp2: HMMA.SP.16832.F32).
        # latency: 1w ILP1 slope 23.99-24.02 (T/sp_{f16_k32_f16,f16_k32_f32,bf16_k32_f32,tf32_k16_f32,
        # s8_k64}:ilp1); ii: pipe-bound trips 64n + 16 for n = 4..8 (T/sp_f16_k32_f32:ilp4..8: 272..528).
        "sparse_k32": {"latency": 24.0, "ii": 8.0, "forms": [
            "m16n8k32.f16.f16.f16.f16", "m16n8k32.f32.f16.f16.f32", "m16n8k32.f32.bf16.bf16.f32",
            "m16n8k16.f32.tf32.tf32.f32",
            "m16n8k64.s32.s8.s8.s32", "m16n8k64.s32.s8.s8.s32.satfinite", "m16n8k64.s32.s8.u8.s32",
            "m16n8k64.s32.s8.u8.s32.satfinite", "m16n8k64.s32.u8.s8.s32", "m16n8k64.s32.u8.s8.s32.satfinite",
            "m16n8k64.s32.u8.u8.s32", "m16n8k64.s32.u8.u8.s32.satfinite"]},
        # dense mma.sync HMMA.16816 / IMMA.16832 (P/dense_f16_k16_f32_ilp2: HMMA.16816.F32).
        # latency: 1w ILP1 slope 24.00-24.01 (T/dense_{f16_k16_f16,f16_k16_f32,bf16_k16_f32,tf32_k8_f32,
        # s8_k32}:ilp1); ii: pipe-bound trips 48n + 18 for n = 4..8 (T/dense_f16_k16_f32:ilp4..8).
        "dense": {"latency": 24.0, "ii": 6.0, "forms": [
            "dense:m16n8k16.f16.f16.f16.f16", "dense:m16n8k16.f32.f16.f16.f32", "dense:m16n8k16.f32.bf16.bf16.f32",
            "dense:m16n8k8.f32.tf32.tf32.f32",
            "dense:m16n8k32.s32.s8.s8.s32", "dense:m16n8k32.s32.s8.s8.s32.satfinite",
            "dense:m16n8k32.s32.s8.u8.s32", "dense:m16n8k32.s32.s8.u8.s32.satfinite",
            "dense:m16n8k32.s32.u8.s8.s32", "dense:m16n8k32.s32.u8.s8.s32.satfinite",
            "dense:m16n8k32.s32.u8.u8.s32", "dense:m16n8k32.s32.u8.u8.s32.satfinite"]},
        # forms not traced: assumed like the traced group of the same class
        "sparse_default": {"latency": 24.0, "ii": 8.0, "forms": []},
        "dense_default": {"latency": 24.0, "ii": 6.0, "forms": []},
    },
    # global loads through the SM's sectored L1 (32-byte sectors; empty at each launch, L2 warm on the
    # non-first launches the statistics use). Which A/B/E fragment loads hit is decided by sectors alone:
    # they issue after the clock read (sched rule 1) and after the C loads of the same lanes completed
    # (ILP >= 2: the C copies before the clock read wait for them). Records of 36/28/40/32 bytes per lane
    # (k16 sparse, dense) put C bytes in every sector: the 1-warp ILP>=2 prologue is 93 cycles
    # (T/sp_f16_k16_f32, sp_s8_k32, sp_tf32_k8_f32, ...) or 99 (T/dense_*_f32); the 52/44-byte records of
    # the k32 sparse forms leave 36-byte gaps, so some sectors miss and the prologue is ~390 at every ILP
    # (T/sp_f16_k32_f32, sp_s8_k64, sp_tf32_k16_f32, ...).
    "memory": {
        "sector_bytes": 32,
        # L1 hit [lit: ~32 cycles on H100 with the wavefront below]; fitted with mem_param above to the
        # 1-warp reps-4 runs of the 18 native traces.
        "l1_hit": 30.0,
        # L2 hit (warm) fitted to the k32 prologue (~390, every ILP) and the ILP1 prologues (345 k16, 398
        # k32: the A/B/E loads wait for the C loads' fills or miss after them) [lit: ~260-300 near L2
        # partition; the traces' data sit where they sit]. 350 until the misses' tag stage and wavefronts
        # (below) took 15-20 cycles of those prologues: 335 puts the one-warp runs of 4 trips at a mean error
        # of 0.63 % (350: 0.94 %; 325: 0.60 %, the 867 native configurations' mean 0.811 against 0.800).
        "l2_hit": 335.0,
        # every L1 hit moves its wavefronts through the SM's L1 data path, 2 cycles each; a wavefront is one
        # access per 4-byte bank (32 banks), so lanes 32 bytes apart (T/dense_f16_k16_f16: 8-word
        # records) conflict 8 ways: its ILP>=2 prologue is 170, 71 more than the 40-byte records of
        # T/dense_f16_k16_f32 (2-way): 6 loads x (8 - 2) wavefronts x 2 cycles = 72.
        "wavefront": 2.0,
        # ... per sub-partition; the SM's L1 data path takes one every cycle from all of them, and its miss path
        # one 128-byte line a cycle (traces/h200/gmem_rate.json, warpsim.timing.gmem_rate: 1-16 warps each
        # loading 32 requests over 1, 8 or 32 lines; one warp's L1 hits 2.08 cycles a line, 4-16 warps' 1.1; 16
        # warps' L2 loads 1.0-1.07 cycles a line, p32 17,468 cycles for 16,384 lines).
        "wavefront_sm": 1.0,
        "miss_ii": 1.0,
        # a hit's lines pass the SM's tag stage first, 4 of its 128-byte lines a cycle for all the sub-partitions:
        # a request of more waits ceil(lines / 4) - 1 cycles more, and requests queue there (traces/h200/l1_hit.json,
        # warpsim.timing.l1_hit: one warp's 8 dependent hits 2 cycles a step longer a wavefront and ~1/4 a line; 16
        # requests over 32 lines without a bank conflict 199 cycles for one warp, 315 / 531 / 900 / 1,649 for 2 / 4 /
        # 8 / 16 warps: 8 cycles a request for the SM; the engine 138-249 without the stage, within 19 % with it).
        # "tag_all" (on since 2026-11-29): a miss's lines too. traces/h200/l1_dup.json's requests of the recorded
        # kernels' shape (each lane's record 40 bytes on: 10 lines a request, 1-2 wavefronts) that wait for fills
        # another request brought cost 2.7-2.9 cycles each with 16 warps, the stage's ceil(10 / 4); and the H100's
        # own trips kernels (T/trips_sp_f16_k32_f32:ilp1, 13-line requests) leave their first trip later by 33
        # cycles a warp (558 with one warp, 1,062 with 16, 212 apart): with it 934 and 210 apart, without 771 and
        # 79. (Before the refit below it had put the trips kernels with 16 warps at ILP 1 6-9 % short.) The probe's
        # lone hit is 35-37 cycles from LDG to its reader in the SASS; l1_hit stays at 30 (34: the one-warp ILP 2
        # runs with 4 trips 0.7 points longer).
        "tag_lines": 4,
        "tag_all": True,
        # "miss_wavefronts" (on since 2026-11-29): a fill's data passes the L1 data path too, its wavefronts booked
        # from the fill's arrival at "miss_wavefront" cycles each on the sub-partition's port and "wavefront_sm" on
        # the SM's path; a request for a sector being filled (any warp's) waits for that fill. Measured by
        # traces/h200/l1_dup.json (warpsim.timing.l1_dup): 1-16 warps each asking 1-16 times for the same words or
        # for other lines. Where a request's lanes fall in one or two banks' words a line (stride 36-44 bytes: 1-2
        # wavefronts) 8 requests of the same words take 16 warps 886-896 cycles, of other lines 1,644-1,902: the
        # fill is shared. Where they conflict 8-32 ways (4 lanes a line 16 bytes apart, or one lane a line) the
        # same words cost as much as other lines (16 warps, 16 requests over 32 lines: 8,672 / 8,849): each
        # request's wavefronts, one a cycle for the SM. So gmem_rate's and l1_merge's pairs (8- and 32-way), which
        # had read as the L1 fetching a line again for each warp, were the data path. The engine before this: the
        # 505 increments of l1_dup (each kernel less its one-request kernel) off by 231 cycles on average, now 40;
        # one warp's 32-way requests pass at ~1 cycle a wavefront (so "miss_wavefront" 1.0; a hit's dependent
        # chain pays "wavefront" 2). With them the H100's trips kernels leave their first trip where the H100
        # does (dense with 16 warps 834 cycles and 134 apart, the H100 776 and 133; before 548 and 19), the
        # H200's record_merge within 12 % (16 warps sharing the records 191 against 170, before 248), the H200
        # GEMM with 8 warps within 1 % (before 16 % short). It lengthens the one-warp prologues by ~15-20 cycles,
        # so l2_hit was refitted (350 -> 335), and the tensor pipe's sharing costs (tensor_sharing, store_pipe).
        "miss_wavefronts": True,
        "miss_wavefront": 1.0,
        # global stores queue at the SM's store port, which takes 2 cycles a line or 1 a sector, whichever is
        # more, and while 40 wait there no warp issues another (gmem_rate.json: 4-16 warps each storing 32
        # requests over 1 / 8 / 32 lines take 3.7-4.0 / 14.6-16.0 / 58.9-64.0 cycles a request more per warp,
        # and the last store issues 40 requests' work before the port is done, at every warp count from 4 on;
        # traces/h100/l1_rate.json's local stores, a line of 4 sectors every 4 cycles, agree).
        "store_queue": 40,
        "store_line": 2.0,
        "store_sector": 1.0,
        # a sub-partition issues a global store at most every store_ii cycles (gmem_rate.json: one or two warps' 32
        # stores over 1 or 8 lines take 279-281 cycles, 8.4-8.7 a store, over 32 lines 354; the engine at the
        # MIO's 4 took 174-193, 32-45 % short; with 7: 265 / 248 / 269, 5 / 11 / 24 % short). 8-8.7 fits the one
        # warp closer (+4 / -2 % at 8) but moves two runs of the recorded table that sit on the 5 % edge past it
        # (the trips kernel of sp_f16_k32_f32 at ILP 1 with 16 warps to -5.003 %, sparse e4m3 ILP 1 with 7 warps,
        # +4.9998 % in the table, by 0.6 cycles to +5.001 %); 7 moves neither.
        "store_ii": 7.0,
    },
    # ------------------------------------------------------------------ emulated forms (no native pipe)
    "emulated": {
        # Kernels whose SASS is on file (warpsim/timing/sass_sm90.json: ptxas 13.0.88 = the SASS the H100 ran,
        # the driver's JIT cache holds the same instructions and control bits for all 48 emulated kernels,
        # traces/capture/jit_sass.py) run each emulated mma as 1/n of ptxas's loop trip (n emulated mma per
        # trip), the trip run instruction by instruction on the SM's pipes for the warps of the loop on each
        # sub-partition (warpsim.timing.sass_sim). Evidence for the numbers below: the 1-warp trips (slope
        # between reps 4 and 32) of the 48 emulated kernels (T/sp_s4_k64, sp_s4_k128, dense_s4_k64,
        # dense_e4m3_k32_f32, sp_e5m2_k64_f32: ilp1..8) and the 2..16-warp runs at ILP 1 and 4.
        "sass": {
            # ALU pipe, 16 lanes per sub-partition: a warp instruction every 2 cycles [lit: H100 whitepaper];
            # ptxas itself puts stall count 2 between back-to-back LOP3/SHF of every s4 unpack routine
            # (P/sp_s4_k64_ilp1). With it the 4-warps-per-sub-partition s4 runs at ILP 1 are ALU-bound:
            # 4 x 2 x 1144 ALU ops = 9152 per trip, T/dense_s4_k64:ilp1 warps 16 = 9337 per trip.
            "alu_ops": ["LOP3", "SHF", "IADD3", "SEL", "PRMT", "ISETP", "LEA", "MOV", "PLOP3", "F2FP", "IABS",
                        "VIADD", "P2R", "R2P", "SGXT", "BMSK", "POPC", "FLO", "IMNMX", "FSEL", "FSETP"],
            "alu_ii": 2,
            # IMAD on FMA-heavy, FADD/FFMA/FMUL on FMA-heavy or FMA-lite, 16 lanes each [lit]: a lone warp
            # issues FADDs every cycle (P/dense_e4m3_k32_f32_ilp1: 32 FADD at stall 1), two warps share them:
            # T/dense_e4m3_k32_f32:ilp4 warps 8, 12, 16 = 1.65, 2.34, 3.07 x 4 warps (model 1.61, 2.27, 2.97
            # with ``hold`` below, 1.67, 2.41, 3.15 without).
            "fma_heavy_ops": ["IMAD"],
            "fma_ops": ["FADD", "FFMA", "FMUL"],
            "fma_ii": 2,
            # the tensor op of each SASS shape runs at the ii of the native group it belongs to
            "tensor_groups": {"HMMA.SP.16832": "sparse_k32", "HMMA.16816": "dense", "IMMA.SP.16832": "sparse_k16",
                              "IMMA.SP.16864": "sparse_k32", "IMMA.16832": "dense"},
            # which warp a sub-partition issues from (traces/h100/TIMING_FINDINGS.md, "The issue rule"):
            # - "yield_switch", "hold" 1: a warp keeps the turn until an instruction with the yield flag, or until it
            #   waits 2 cycles or more past its issue while another warp issues (traces/h100/sched_probe.json,
            #   warpsim.timing.sched_probe: two warps both wanting the ALU; a probe step 16 cycles alone, 33 beside
            #   a hog that yields every sixth LOP3, 274-532 with the hog's flags patched to no-yield, 16.9 with the
            #   probe's; the replay 31.1 / 385 / 17.2 / 33.1). Without the flag the turn would pass on every wait
            #   of 2 cycles (the greedy rule this table had until 2026-11-27, with "hold" 2: 17 cycles in all four);
            # - "yield_order" lru: the turn goes to the warp of the sub-partition that issued least recently (s4
            #   loops with 3 and 4 warps a sub-partition within 0.7-3.8 % of the H100's ratios to one warp; the
            #   next in turn up to 6.0 % off);
            # - "gap_turn": a warp that issues an instruction to another pipe than the ALU (IMAD, FADD, an MMA, an
            #   MIO op) while the turn's warp waits out its stall count takes the turn; an ALU op issued there does
            #   not (the probe's four runs are the same either way). Without it two warps of an s4 loop that start
            #   it less than 60-150 cycles apart stay in phase (dense_s4_k64 ILP 4 1.72x one warp) where the H100's
            #   part in their first trip and stay apart (dense_s4_k64 ILP 4 never in phase, 118-1,137 cycles, 1.55-
            #   1.58x; traces/h100/trip_phase_reps.json); with it they part from any start (1.535x). The 750 pairs
            #   of traces/h100/loop_start_sass.json replayed from their own loop starts (pair_modes --fit): 648
            #   within 5 % with it, 612 without, 539 greedy. The six trip_phase.json kernels the table was not
            #   fitted to (warpsim.timing.trip_phase): 36 of 36 within 5 %, max 2.2 % (greedy 35, max 5.3 %).
            #   A stand-in: beside a hog on the FMA pipes (traces/h100/sched_gap.json, sched_probe --gap) the
            #   H100's hog takes the turn in the probe's stalls less often than this (probe steps 35 / 41 / 56
            #   cycles with the hog yielding every 4th / 8th / 16th FFMA; this rule 40 / 58 / 111, none 22 / 24 / 38).
            # The recorded emulated configurations within 5 %: 272 of 276 (greedy 269; this rule without
            # "gap_turn" 268, with "hold" 2 270, with the next warp in turn 262, with the fitted CALL/RET
            # redirects of the greedy table 263).
            "yield_switch": True,
            # an instruction with the yield flag costs its warp a cycle even alone: its next instruction issues no
            # sooner than 2 cycles after it (traces/h100/gap_stall.json, warpsim.timing.gap_stall: a loop of 64
            # FFMA at stall count 1 and a branch, 76.0 cycles a trip, 80.1 / 84.2 / 92.3 with the yield flag on 4 /
            # 8 / 16 of its FFMA; the replay 78.0 without this). ptxas puts the flag on instructions of stall count
            # 1 in none of the recorded loops but sp_s4_k64 ILP 1 (8 of 1,059): the emulated table 273 of 276
            # within 5 % with it or without (median 0.76 / 0.79 %)
            "yield_bubble": True,
            "yield_order": "lru",
            "gap_turn": True,
            "hold": 1,
            # a FADD or BRA without the yield flag (control bit 4 set, sass_profile.encode; ptxas clears it on most
            # FADDs into C and on the loop-closing BRA of the fp8 kernels) keeps its sub-partition through its stall
            # count: no other warp issues there until it has waited it out (the fetch redirect after a BRA is the
            # warp's own). T/dense_e4m3_k32_f32:ilp1 with 4, 8, 12, 16 warps (reps 32) ran 104, 137, 174, 204 cycles
            # a trip (each extra warp on a sub-partition about 35, in a straight line); the replay without it 102,
            # 133, 159, 196 (it overlapped the warps more: warps 10-15 5.4-8.1 % short), with it 102, 134, 171, 212
            # (warps 5-16 within 3.7 %; ilp4 warps 5-16 from 1.5-4.9 % to 0.6-3.4 % short). The non-yielding
            # LOP3/SHF/IMAD/CALL/RET of the s4 routines held the same way make 3-4 s4 warps a sub-partition 5-10 %
            # long (T/sp_s4_k64:ilp1, T/dense_s4_k64:ilp4): the H100 does not keep the sub-partition there.
            # Those figures are of the greedy rule. Under the yield rule above the BRA's 6 cycles held whole put
            # T/dense_e4m3_k32_f32:ilp1 with 14 and 16 warps 6.0 / 6.1 % long; "keep_cycles" 5 (fitted) puts all
            # 46 dense e4m3 configurations within 5 % (4: warps 8 5.4 % short; 3: five of warps 8-12 5.0-6.2 %
            # short; 2: warps 11, 12 5.8 / 6.4 % short; not kept at all: warps 10-13 5.9-8.1 % short). The FADDs'
            # stall count is 1: only the BRA is held. With the register banks (2026-11-27) 4 / 5 / 6 put 273 / 271 /
            # 274 of the 276 emulated configurations within 5 % (4: dense e4m3 ILP 1 with 8 warps 5.6 % short; 6:
            # sparse e4m3 ILP 4 with 10 warps 5.1 % long), the sparse fp8 ILP 4 runs with 6-7 warps moving most:
            # chaotic there, so the fitted 5 stays (TIMING_FINDINGS.md, the register file's two banks).
            "keep_ops": ["FADD", "BRA"],
            "keep_cycles": 5,
            # MIO: SHFL, LDL, STL, LDC, S2R ... go to the SM's shared-memory/L1 unit: a warp hands it one every
            # 4 cycles, a sub-partition one every 2, the SM one a cycle, measured by traces/h100/l1_rate.json
            # (warpsim.timing.l1_rate: independent LDL / SHFL hits, 1-16 warps spread or on one sub-partition:
            # 0.18-0.20 a cycle for one warp, 0.49-0.51 for one sub-partition, 1.0 for the SM; the replay of
            # the probe's SASS within 0.1 a cycle). Before that measurement one every 4 cycles per sub-partition
            # had been fitted to T/sp_e5m2_k64_f32:ilp1 with 5..16 warps.
            "mio_ops": ["SHFL", "LDL", "STL", "LDC", "S2R", "LDS", "STS", "LDG", "STG"],
            "mio_ii": 2,
            "mio_warp_ii": 4,
            "mio_sm_ii": 1,
            # after an SHFL, S2R or LDC the sub-partition dispatches no other warp's non-MIO instruction for two
            # cycles (the warp itself may issue). Nsight Compute's warp states of the recorded kernels
            # (traces/h100/stall_reasons.json, warpsim.timing.stall_reasons) show the H100's warps of
            # T/sp_e4m3_k64_f32:ilp1 (92 SHFL in 411 instructions a trip) losing 39 / 58 / 124 / 189 cycles a
            # trip to dispatch stalls with 5 / 8 / 12 / 16 warps (one warp, or one a sub-partition: 15), spread
            # over nearly every instruction of the loop: ~63 a trip for each other warp of the sub-partition.
            # With this hold the replay's warps lose 35 / 95 / 200 / 336 (one cycle: 21 / 48 / 109 / 177), and
            # with the measured SHFL latency below (24) the sparse fp8 ILP 1 runs with 2-16 warps are within 5 %
            # (with one cycle 5-6 warps run 6-8 % short: two warps on a sub-partition run 1.30x one warp or 1.40x
            # on the H100, the replay's pair 1.37x with this hold, 1.30x with one). The hold stops FADD/FFMA too
            # (until 2026-11-26 sass_sim let them through it, unlike what it documented). A stand-in for a mechanism not
            # found: the probe of traces/h100/l1_rate.json with 3-8 warps shuffling on one sub-partition runs
            # slower with it than without (0.40 SHFL a cycle with one cycle, 0.46-0.48 without, the H100
            # 0.47-0.51), and the H100's warps lose under 1 % of their cycles to dispatch stalls there
            # (traces/h100/l1_rate_stalls.json): the SHFL is not what holds the dispatch. What does is not
            # measured; the hold is fitted to the fp8 ILP 1 runs, between the counters' dispatch stalls. Those
            # figures are of the greedy rule; under the yield rule the table took on 2026-11-27 the pair runs 1.34x
            # and sparse e4m3 ILP 1 with 5 and 6 warps and e5m2 with 5 are 5.4-5.5 % short (known misses; with a
            # hold of one cycle ILP 1 with 5, 6, 11, 15, 16 warps 5.5-7 % short, with three 7-16 warps 7-12 % long).
            # With the register file's banks (below, 2026-11-27), which give part of those dispatch stalls, one
            # cycle: with two sparse fp8 ILP 1 with 8-16 warps run 5-9 % long, with none 13-16 warps 5-6 % short
            # (the emulated table 261 / 275 / 265 of 276 within 5 % at 2 / 1 / 0 cycles, screened before an MIO
            # instruction was held for a busy bank; with that fix 256 / 271 / 267, TIMING_FINDINGS.md, the
            # register file's two banks). Still a stand-in.
            "mio_hold": 1,
            # variable-latency results (the scoreboards of the control bits): SHFL 24, measured by
            # traces/h100/chain_latency.json (warpsim.timing.chain_latency: a chain of dependent shfl.sync,
            # 24.1 cycles from one to the next, 1-16 warps). It had been fitted to the one-warp fp8 runs as 28
            # (26 before the scoreboards counted every result), standing in for the stores' register reads
            # (l1 "store_read" below): Nsight's warp states had the H100's one warp waiting 0.7-0.8x as long on
            # its shuffles as the replay's and 1.1-1.5x as long on its local loads; with the measured latencies
            # both are within 10 % at ILP 2-8 (stall_reasons --one). LDC/S2R 30 [lit], though chain_latency.json
            # measured 28 (a chase through a constant table) and 22 (a predicated S2R chain): with them sparse
            # fp8 ILP 1 with 4-6 warps runs 5-6 % short, ILP 4 with 7 warps 7.5 %, dense_s4_k64 ILP 4 with 9-11
            # warps 5-6 % long (the one-warp ILP 1 trip from -3.7 to -4.5 %). These loops pay the H100 cycles the
            # replay does not know of yet; the literature's 30 stands in for part of them until they are found.
            "latency": {"SHFL": 24, "LDC": 30, "S2R": 30},
            # cycles a CALL, RET or taken BRA adds to its stall count (the fetch redirect): CALL/RET fitted to
            # the 24 s4 kernels' 1-warp runs (8..64 calls a trip; reps 4 and 32: within 2.1 %, median 0.4 %),
            # BRA to the loop trips of T/dense_e4m3_k32_f32:ilp1..8 (stall counts 86..327, trips 90..334).
            # Measured instruction by instruction since (traces/h100/stall_reasons_source.json,
            # warpsim.timing.pc_samples): the H100's CALL costs under a cycle past its stall count and its RET
            # ~37, the same sum split otherwise. With that split (CALL 1, RET 37) the replay times 6,368 of
            # dense_s4_k64 ILP 4's 6,404 instructions within a cycle of the H100 (6,304 with 20 / 20). The table
            # takes the measured split since it issues by the yield rule (with 20 / 20 there: 263 of the 276
            # emulated configurations within 5 %, with the split 272); under the greedy rule it had made the pairs
            # longer (1.71x one warp, the H100 1.58x; 267, from 269) and the fitted split had stayed.
            "redirect": {"CALL": 1, "RET": 37, "BRA": 6},
            # local memory (the spills) through the SM's L1, as measured where it was measured:
            # - "lines" 1792 (224 KB), 4-way sets with the index XOR-folded: the carveout these launches get
            #   (traces/h100/l1_probe.json, warpsim.timing.l1_probe; no plain-modulo index there), and "wide":
            #   1920 lines (240 KB) with 16 warps: the probe measured 224 KB for every CTA of 32-480 threads and
            #   240 KB for 512 (--stage 6, 2026-11-26: 256-512 threads in steps of 32). A step past 8 warps,
            #   tried before that run, fitted the fp8 table better (83 of its 92 configurations within 5 %,
            #   against 79), but the H100 does not do it;
            # - "hit" 29: a dependent local load hits 29.1 cycles after the one before it (chain_latency.json;
            #   l1_probe.json's 35 includes its clock reads); "store_read" 13: a local store's read scoreboard
            #   clears 12-13 cycles after it issues (chain_latency.json: a chase whose loads fill the register
            #   their step's store reads, ptxas's spill-and-fill pattern STL [a], Rx; LDL.LU Rx, [b], takes 42.1
            #   cycles a step, 34.1 with a register of its own; the replay 42.0 / 33.0). ptxas has the fp8 loops'
            #   fills wait on it (ILP 4: 384 of 573 stores a trip, 184 times by the very next LDL.LU), and
            #   with it the one-warp fp8 runs at ILP 2-8 are within 2 % at the measured latencies (they had
            #   been only with a fitted hit of 36 and SHFL 28, and ILP 2 5 % long);
            # - "miss" 305: a miss alone 259-324 (traces/h100/l1_fill.json, warpsim.timing.l1_fill), fitted
            #   within it to the sparse fp8 ILP 4 runs (320 had been fitted with the old hit and SHFL; with the
            #   measured ones 290 leaves 5 and 7 warps 7 % short, 320 9-14 warps 4-7 % long), "fill_ii" 1 (16
            #   warps filling 0.63 lines a cycle there);
            # - "store_miss" validate: a store that misses allocates its line and fetches nothing, every store
            #   writes through (Nsight's counters, traces/h100/l1_counters.json, warpsim.timing.l1_counters);
            #   "last_use" evict_first: an LDL.LU (85-93 % of the fills) leaves its line first in line for
            #   eviction (what LDL.LU does was not measured: ``ld.local.lu`` compiles to a plain LDL; with it the
            #   replay's load misses follow the counters within a few points at ILP 4 with 5-10 warps);
            # - "stale" 0: the loop starts with an empty L1 (the traces are recorded after an L1 reset);
            # - "store_ii" 4: the SM passes one local store line every 4 cycles, whatever the warps
            #   (traces/h100/l1_rate.json: STL hits 0.24-0.26 a cycle from 1-16 warps); "store_queue" 1024: a
            #   store issues while at most 1024 cycles of stores are queued at that port. The H100's fp8 warps
            #   almost never wait to issue an LDL/STL (Nsight's lg_throttle at most 101 cycles a trip,
            #   traces/h100/stall_reasons.json), where with no queue (0, the table before) the replay's waited up
            #   to ~5,500 cycles a trip; with 1024 they wait 93-540 with 4-12 warps, still ~5,900 with 16 (their
            #   stores come in bursts). The l1_rate probes that saturate the port do wait (lg_throttle 86 % of
            #   their cycles with 16 warps), so the queue is finite: with 64-1024 the replay runs the store probe
            #   at 0.25 a cycle, with no bound at up to 0.51.
            # Until the scoreboards counted every result (sass_sim: a wait on a scoreboard had waited only for
            # the last access issued on it, so a miss followed by a hit on the same scoreboard cost nothing;
            # ptxas puts the fp8 loops' 712 fills a trip on 5 scoreboards) no such L1 fitted: the table had a
            # fitted 2,048-line LRU with a fetch on every store miss, a miss of 250, a fill every 4 cycles and
            # the L1 "stale" (full of foreign lines as if used at the 400th access), 15 of the 1,143 recorded
            # configurations outside 5 % (fp8 ILP 4 with 7-9 warps +10..+14 %), and the measured L1 left ILP 4
            # with 5-8 warps 14-20 % short. With the counting scoreboards a load miss costs the replay's warps
            # a flat ~100 cycles from 5 to 16 warps, as Nsight's warp states show for the H100's (100-121), and
            # the measured values above fit better: e4m3 / e5m2 39 / 40 of 46 configurations within 5 %, max
            # 9.3 % (ILP 4 with 3-7 warps 5.3-9.3 % short, with 10-15 5.7-6.6 % long), and 44 / 43 over the
            # kernels' 32 trips ("trips" below), max 6.8 % (TIMING_FINDINGS.md). The L1's other options
            # ("policy", "hash", "local", "last_use_share", "in_order", "fill_port") stay off: none helped.
            # "store_sp_ii" (a store holding its sub-partition's MIO 3 cycles a line) is measured where the
            # others were not (l1_rate.json: mixed loads and stores from one sub-partition pass at 0.31-0.34 a
            # cycle, the replay 0.36-0.46 without it, 0.30-0.38 with it), but on the sparse fp8 table it moves
            # the count only within the replay's own spread: with a miss of 296-310 cycles 81-92 of the 92
            # configurations within 5 % with it, 88-92 without (TIMING_FINDINGS.md, instruction by instruction).
            "l1": {"lines": 1792, "ways": 4, "line_ii": 1, "hit": 29, "store_read": 13, "miss": 305, "fill_ii": 1,
                   "stale": 0, "store_ii": 4, "store_queue": 1024, "store_miss": "validate", "last_use": "evict_first",
                   "wide": {"warps": 15, "lines": 1920}},
            # the instruction fetch, measured by traces/h100/ifetch.json (warpsim.timing.ifetch: loops of 256 to
            # 16,384 straight-line FFMA, one instruction a cycle or one every 4, 1-8 warps, and 1-4 warps on one
            # sub-partition running copies that share no code): up to 25 KB of code a trip runs at the issue
            # rate, 32.9 KB (258 lines) nearly so (1.15 cycles an instruction), 49-98 KB at 2.22: an L0 of about
            # 32 KB a sub-partition ("l0_lines" 264, between the 258 lines that mostly fit and the 386 that do
            # not), a warp getting one 128-byte line every 17.8 cycles ("latency" 18) from an SM-wide cache of
            # more than 131 KB and less than 197 KB ("l1i_lines" 1152), past which one every 45 ("l2_latency"),
            # whether it issues an instruction every cycle or every 4: a warp asks for the next line as it
            # starts a line ("ahead" 1) and waits for it. Not a port: two warps on one sub-partition with code of
            # their own each keep the one-warp rate, four slow ones too ("ii" 0); four warps past the SM cache
            # share the L2's lines at one every 12.7-12.9 cycles ("l2_ii" 13). A launch finds the code of the
            # launches before it cached (launched again, a kernel's first trip runs at the later trips' rate),
            # so the caches start with the loop's lines. The replay of the probe's SASS follows its runs within
            # 5 % but at the caches' edges (32.9 KB 12 % short, 131 KB 12 % / 4 %), two warps on the same code
            # 1-12 % long, four fast ones on two or four copies 9-10 % short. Of the recorded loops only
            # T/sp_e*m*_k64_f32:ilp3..8 (31-95 KB) are larger than the L0, and the fetch never limits them (~6 cycles an
            # instruction a warp); with it ILP 4 with 3-16 warps moves by -3.5..+1.0 points (which spill lines
            # the L1 keeps shifts with the timing; 7-9 warps nearer the H100, 4 warps e5m2 +4.6 -> +5.03 %), the
            # one-warp runs by less than 0.5 %.
            # A taken branch to a line the sub-partition has not run lately costs more: traces/h100/branch_fetch.json
            # (warpsim.timing.ifetch --branch: one warp, loops of 27-67 code lines at one instruction a cycle, and
            # loops that branch over 128-1,024 instructions of their own code every trip) has a trip of up to 45
            # lines pay its branch as the replay does and one of 49 or more 11 cycles more ("near_miss" 11; one
            # instruction every 4 cycles: 8-9), whatever the distance jumped: the loops that skip 1,024
            # instructions but run 12 lines pay no more than those that skip 128. So a sub-partition keeps its last
            # 45-48 lines near ("near_lines" 48, 6 KB). Nsight's samples agree (stall_reasons_source.json): the
            # closing branch of T/sp_e4m3_k64_f32:ilp1 (51 lines) and of T/dense_s4_k64:ilp4 (64 lines run since
            # its target) cost 22 cycles to the loop's first instruction, the replay's 12 without this; the s4
            # routines' CALLs and RETs (17-35 lines since) are near, as measured (CALL 1, RET 37 below).
            "fetch": {"l0_lines": 264, "ii": 0, "latency": 18, "ahead": 1, "l1i_lines": 1152, "l2_ii": 13,
                      "l2_latency": 45, "near_lines": 48, "near_miss": 11},
            # the register file's two banks (sass_sim "banks"), measured by traces/h100/regbank.json: one register a
            # cycle from each bank (register number mod 2), a register read twice by an instruction read once;
            # one to four warps of FFMA chains on one sub-partition run at the banks' rate (1.50x / 2.25x / 2.99x
            # one warp with 2 / 3 / 4 warps and three registers of one bank), but two warps asking exactly the
            # bank's rate lose one cycle in four more (1.256x), which the model does not have; an operand flagged
            # .reuse is served to the warp's instructions among the sub-partition's next two that read a register
            # (sass_sim.REUSE_SPAN, fitted to the two-chain runs; counting only those since gap_bank.json). The
            # replay of the 60 runs within 3 % but those. One warp's trips come right with it
            # (T/sp_e4m3_k64_f32:ilp1 995 cycles, the H100 997, 970 without; dense_s4_k64 ILP 4 12,747 / 12,748).
            # On since 2026-11-27, with a hold of one cycle after an SHFL ("mio_hold" above) and
            # the warps of a sub-partition starting their loops apart ("stagger" below): the emulated table 271 of
            # 276 within 5 % (250 with banks alone; TIMING_FINDINGS.md, the register file's two banks).
            "banks": True,
            # an FFMA that reads a second register from one bank stops the stall counts of the sub-partition's
            # other warps for that cycle (sass_sim "bank_freeze"), measured by traces/h100/regbank_slack.json
            # (warpsim.timing.ifetch --slack: the chain of regbank.json with its stall count raised to 5, 6, 8):
            # two warps of FFMA reading two registers of one bank take 5 / 6 / 7 cycles a round at a stall count of
            # 4 / 5 / 6 (the banks' rate: 4 / 5 / 6), three take 7 at 5 and 10 at 8, four 9 at 6 and 11 at 8 (the
            # rate 6-8): each other warp's second read costs a warp a cycle. With it the replay follows all 60 runs
            # of regbank.json within 1.7 % (the 8 two-warp runs at the bank's exact rate had been 19 % short) and 15
            # of the slack probe's 18 within 1 %; not the three with the most slack (two warps at 8 cycles: 1.003x
            # one warp, the replay 1.13x; three at 6: 1.18x / 1.35x; three reading three of one bank at 6: 1.51x /
            # 1.68x). The FMA pipes' instructions only: a chain of LOP3 (the ALU) loses no such cycle
            # (traces/h100/regbank_alu.json, ifetch --alu: three warps at a stall count of 8 1.01x one warp, FFMA
            # 1.26x; two at 4 1.02x, FFMA 1.256x). On every instruction it would put sp_s4_k64 ILP 4 with 11-16
            # warps 5.6-7.5 % long and the emulated table 261 of 276 within 5 %; on the FMA pipes 273 (271 without).
            "bank_freeze": True,
            # the k-th warp of a sub-partition starts the loop k x 60 cycles after the first: the H100's pairs start
            # their loops 18-63 cycles apart in the order the traces were recorded (traces/h100/loop_start_sass.json,
            # the recorded SASS with the start clock moved after the operand loads: median 18 / 47 / 63 cycles with
            # 5 / 6 / 7-10 warps; warpsim.timing.pair_modes --launch-order). Started together, two warps of
            # dense_s4_k64 ILP 4 stay in phase under the banks (1.66x one warp, the H100's 1.55-1.64x) and its 7-8
            # warp runs are 5.5-7.5 % long. From 40 to 100 cycles the emulated table was 274-275 of 276 within 5 %
            # (screened before the busy-bank fix for MIO instructions; with it, at 60, 271, the s4 loops 137 of 138):
            # only sp_s4_k64 ILP 1, whose two modes the launch before sets (known.py), moves (8-9 warps out below
            # 63, 6 warps out from 80); at 150, 272. Screened again with the fix: 263 / 269 / 269 / 271 / 273 / 272 /
            # 272 at 0 / 20 / 40 / 60 / 80 / 100 / 120 (from 80 sp_s4_k64 ILP 1's 6-warp pair out of phase, -5.8 %,
            # where the H100's is in phase; sparse fp8 ILP 4 with 6-7 warps short at every start), and the replay
            # averaged over several starts no better than the best one (TIMING_FINDINGS.md).
            "stagger": 60,
            # trips simulated per population of warps: the first (cold L1), then the later ones averaged; 32,
            # the recorded kernels' trips (reps 32). With several warps the L1 holds other spill lines from trip
            # to trip and the warps' phases drift: sparse fp8 ILP 4 with 3-16 warps moves by -3..+4 % from 8
            # trips (4 and 20,000 instructions a warp, before) to 32, and 11 of its 32 configurations outside 5 %
            # become 4; the s4 loops and one warp move by less than 0.5 %. A run whose warps repeat one trip
            # stops there (sass_sim.SETTLED); the probes' loops run longer (sass_sim.probe_cfg).
            "trips": 32,
        },
        # s4/u4 mma.sp m16n8k64: CALL to an unpack routine (S/timing_sp_s4_k64_ilp1.sass: 60 LOP3, 32 SHF,
        # 30 IMAD, 2 IMMA.SP.16832.S8.S8 with RZ accumulators, NOP, 4 IADD3 into C, RET; caller MOV + CALL).
        # "ii" of the unpack stage = its issue cost per op (dependency chains of LOP3->SHF->LOP3 on the
        # half-rate INT pipe), fitted to the 1w ILP1 slope 304.96 (T/sp_s4_k64:sp_s4_k64_ilp1).
        "sp:s4k64": [
            {"op": "MOV+CALL", "unit": "branch", "count": 2, "latency": 2.0, "after": "none"},
            {"op": "LOP3/SHF/IMAD unpack", "unit": "int", "count": 122, "ii": 2.2, "latency": 4.0, "after": "ab"},
            {"op": "IMMA.SP.16832.S8.S8", "unit": "tensor", "group": "sparse_k16", "count": 2, "after": "prev"},
            {"op": "IADD3 (+C)", "unit": "int", "count": 4, "latency": 4.0, "after": "prev+c"},
            {"op": "RET", "unit": "branch", "count": 1, "latency": 8.0, "after": "prev"},
        ],
        # s4/u4 mma.sp m16n8k128: 120 LOP3, 64 SHF, 58 IMAD, 2 IMMA.SP.16864.S8.S8, 4 IADD3
        # (P/sp_s4_k128_ilp1; the recorded S/mmasp_i4_k128_s4s4_sel0_ord.sass has the same 2 IMMA.SP.16864);
        # fitted to 1w ILP1 slope 606.09 (T/sp_s4_k128:sp_s4_k128_ilp1).
        "sp:s4k128": [
            {"op": "MOV+CALL", "unit": "branch", "count": 2, "latency": 2.0, "after": "none"},
            {"op": "LOP3/SHF/IMAD unpack", "unit": "int", "count": 242, "ii": 2.31, "latency": 4.0, "after": "ab"},
            {"op": "IMMA.SP.16864.S8.S8", "unit": "tensor", "group": "sparse_k32", "count": 2, "after": "prev"},
            {"op": "IADD3 (+C)", "unit": "int", "count": 4, "latency": 4.0, "after": "prev+c"},
            {"op": "RET", "unit": "branch", "count": 1, "latency": 8.0, "after": "prev"},
        ],
        # s4/u4 mma.sync m16n8k64: 90 LOP3, 48 SHF, 44 IMAD, 2 IMMA.16832.S8.S8, 4 IADD3, caller 2 IMAD
        # (S/timing_dense_s4_k64_ilp1.sass); fitted to 1w ILP1 slope 534.85 (T/dense_s4_k64:dense_s4_k64_ilp1).
        "dense:s4k64": [
            {"op": "MOV+CALL", "unit": "branch", "count": 2, "latency": 2.0, "after": "none"},
            {"op": "LOP3/SHF/IMAD unpack", "unit": "int", "count": 184, "ii": 2.65, "latency": 4.0, "after": "ab"},
            {"op": "IMMA.16832.S8.S8", "unit": "tensor", "group": "dense", "count": 2, "after": "prev"},
            {"op": "IADD3 (+C)", "unit": "int", "count": 4, "latency": 4.0, "after": "prev+c"},
            {"op": "RET", "unit": "branch", "count": 1, "latency": 8.0, "after": "prev"},
        ],
        # e4m3/e5m2 mma.sp m16n8k64 f32: per mma in the loop of S/timing_sp_e4m3_k64_f32_ilp1.sass (488
        # instructions between the clock reads / 8): 11.5 SHFL (fragment exchange, MIO), 13 SEL, 8 IMAD,
        # 4.5 LOP3, 2.75 SHF, 2.75 PRMT, 4 F2FP.F16.E4M3.UNPACK_B, 2 HMMA.SP.16832.F32 (RZ accumulators),
        # 4 FADD into C. Fitted to 1w ILP1 slope 124.63 (T/sp_e4m3_k64_f32:ilp1), 124.62 (T/sp_e5m2_k64_f32).
        "sp:f8k64": [
            {"op": "SHFL fragment exchange", "unit": "mio", "count": 12, "ii": 1.0, "latency": 24.0, "after": "ab"},
            {"op": "SEL/IMAD/LOP3/SHF/PRMT", "unit": "int", "count": 31, "ii": 1.25, "latency": 4.0, "after": "prev"},
            {"op": "F2FP.F16.E4M3.UNPACK_B", "unit": "int", "count": 4, "ii": 2.0, "latency": 6.0, "after": "prev"},
            {"op": "HMMA.SP.16832.F32", "unit": "tensor", "group": "sparse_k32", "count": 2, "after": "prev"},
            {"op": "FADD (+C)", "unit": "fp", "count": 4, "latency": 4.0, "after": "prev+c"},
        ],
        # e4m3/e5m2 mma.sync m16n8k32 f32: F2FP unpack + 2 HMMA.16816.F32 with RZ accumulators + 4 FADD
        # into C; ptxas computes the product of the same A/B once per pass through the loop body and shares
        # it between the chains (P/dense_e4m3_k32_f32_ilp1..8: 12 F2FP + 2 HMMA in the loop body at every
        # ILP, 4 FADD per mma): the model computes a hoisted stage once per distinct A/B/E values per pass
        # through a basic block.
        "dense:f8k32": [
            {"op": "F2FP.F16.E4M3.UNPACK_B", "unit": "int", "count": 12, "ii": 2.0, "latency": 6.0, "after": "ab",
             "hoisted": True},
            {"op": "HMMA.16816.F32", "unit": "tensor", "group": "dense", "count": 2, "after": "prev", "hoisted": True},
            # 4 FADD per mma on the FP pipe, each into its own C register, dependent FADD 4 cycles [lit]: the
            # group's result counts 1 cycle after its last FADD (4 - 3), so a chain advances every 4 cycles:
            # ILP n trips 78 + 32n for n >= 2 (T/dense_e4m3_k32_f32:ilp2..8: 142, 174, ..., 334)
            {"op": "FADD (+C)", "unit": "fp", "count": 4, "latency": 1.0, "after": "prev+c"},
        ],
    },
    # ------------------------------------------------------------------ other chips with this SM
    # what differs from the H100 on another GH100 part, merged over the table by params_for(arch, device=...)
    "devices": {
        # The H200 runs the H100's timing kernels in the same cycles (traces/h200/timing_again.json: 985 of 1,104
        # configurations within 1 %) but for their global loads: its one-warp runs of 4 trips, mostly the
        # prologue's loads, are 3-5 % faster. Its L2 measured (traces/h200/l2_latency.json, warpsim.timing.l2_latency:
        # one lane chasing 928 lines through the L2, each load timed): a line comes back in one of two times, set
        # by its address (the same link's cycles correlate 0.97-0.99 from launch to launch), 280 (near) or 313
        # (far, 55 % of the lines) with the chase's clock reads, which cost the engine 11 cycles: l2_hit 269, far
        # 302. Which lines are far follows no linear function of the address bits within a 2 MB page (tried), so
        # the engine picks them by a hash of the line's address, in the measured share.
        "H200": {"memory": {"l2_hit": 269.0, "l2_far": {"latency": 302.0, "share": 0.55}}},
    },
}
