#include "invariants/ids.hpp"

#include <string>

namespace eevdf::inv {

namespace {

struct Entry {
  std::string_view name;
  std::string_view statement;
  std::string_view doc;
};

constexpr std::array<Entry, kIdCount> kEntries = {{
    {"I-NULLPICK",
     "a pick on a non-empty cfs_rq returns an entity, and some queued entity is eligible",
     "pick_eevdf() returns the earliest-deadline eligible entity. With at least one entity queued,\n"
     "some entity has v <= V (the weighted average lies between the smallest and the largest\n"
     "vruntime), so a NULL pick means the arithmetic behind eligibility is broken. The kernel\n"
     "dereferences the NULL result in pick_next_entity() and crashes.\n"
     "Checked at every pick (inside pick_eevdf) and after every operation using the kernel-typed\n"
     "vruntime_eligible() over all queued entities. No tolerance: exact."},
    {"I-SUM",
     "sum_w_vruntime and sum_weight equal the sums recomputed over the tree",
     "cfs_rq->sum_w_vruntime = Σ (v_i - zero_vruntime)·w'_i and cfs_rq->sum_weight = Σ w'_i over\n"
     "the entities in the tree (curr excluded), w' = avg_vruntime_weight(w) (full weight, or\n"
     "max(2, w >> sum_shift) after PARANOID_AVG shifted). Both are maintained incrementally by\n"
     "__enqueue_entity/__dequeue_entity and re-based by update_zero_vruntime(). Recomputed from\n"
     "scratch after every operation in the kernel's wrapping u64 arithmetic: equality is exact\n"
     "(mod 2^64). An overflow is reported separately by I-OVF."},
    {"I-OVF",
     "no kernel s64/u64 multiplication or addition on the EEVDF path wraps",
     "Every multiplication and addition that can overflow (key·w in the sums and in the curr\n"
     "terms, the Σ accumulations, sum_weight·d in update_zero_vruntime, key·load in\n"
     "vruntime_eligible, lag·(load+w) in place_entity, vlag/deadline/vprot·w_old in\n"
     "rescale_entity, delta·weight in __calc_delta) is computed in 128 bits beside the kernel's\n"
     "type. The first site where they differ is reported with operands and both results; the\n"
     "model then keeps the wrapped value, as the kernel does, so the consequences show too."},
    {"I-KEY",
     "every queued entity's entity_key stays within a few lag bounds: zero_vruntime tracks V",
     "Keys are relative to zero_vruntime so that key·w fits in 64 bits. The kernel's own comment\n"
     "bounds |key| by about two lag bounds ((slice + TICK_NSEC) << NICE_0_LOAD_SHIFT / w). The\n"
     "check allows 4·(B(w_i) + B(w_min)), where B(w) = calc_delta(max_slice + q, NICE_0_LOAD, w)\n"
     "is the lag clamp of weight w with q = TICK_NSEC, or the longest stretch without a tick so far\n"
     "(a late `tick DUR`, a tickless `run DUR notick`), max_slice the largest slice ever queued on\n"
     "this cfs_rq and w_min the lightest queued weight: |v_i - V| and |V - zero_vruntime| are each\n"
     "at most two lag bounds (lag theorem with tick granularity; V moves by at most one\n"
     "lag bound of the lightest entity between two re-basings). Growth without bound (a frozen\n"
     "zero point, a drifting min_vruntime) crosses it within a few slices. Where the zero point is\n"
     "the monotonic min_vruntime (v6.6-v6.18) it must also be up to date after every operation:\n"
     "never behind the smallest queued vruntime, which is what update_min_vruntime() would\n"
     "raise it to (site update_min_vruntime; a sched_change dequeues with DEQUEUE_SAVE, which\n"
     "skips it, and can re-place the leftmost entity further right)."},
    {"I-ELIG",
     "the kernel-typed eligibility test agrees with the exact test v <= V",
     "entity_eligible() decides (Σ key·w) >= key_i·(Σ w) in kernel types. The check recomputes\n"
     "Σ key·w exactly in 128 bits from the tree and curr and compares the answers for every\n"
     "queued entity. No tolerance: the exact test has no rounding."},
    {"I-AVG0",
     "an entity placed at V (zero lag) is eligible: avg_vruntime() rounds down",
     "V must have a left bias: avg_vruntime() floors Σ key·w / Σ w (the `S -= W-1` step turns\n"
     "truncation into a floor for negative sums). The check computes the offset avg_vruntime()\n"
     "would apply, without applying it, and asks vruntime_eligible() about zero_vruntime +\n"
     "offset. It also checks that W·floor(S/W) - S lies in (-W, 0] (the floor's only rounding)."},
    {"I-PICKOPT",
     "every pick equals a brute-force pick with exact arithmetic",
     "At every pick_eevdf() (from schedule and from wakeup preemption) the result is compared\n"
     "with: the single queued entity if nr_queued == 1; else the next buddy if PICK_BUDDY,\n"
     "protect and it is eligible; else curr if protect and its slice is protected; else the\n"
     "earliest deadline among the eligible tree entities (ties: tree order) and curr if it is\n"
     "eligible with a strictly earlier deadline. Eligibility is exact (128-bit)."},
    {"I-AUG",
     "the tree is a red-black tree ordered by deadline and every augment equals its subtree value",
     "Every node's min_vruntime (signed-difference minimum), min_slice and max_slice must equal\n"
     "the values recomputed from its subtree; in-order deadlines must not decrease; colours and\n"
     "parent links must be consistent; leftmost must be the first node. The kernel's callbacks\n"
     "recompute on the insertion path and copy augments on rotations; v7.1's single-field\n"
     "RB_DECLARE_CALLBACKS copied only min_vruntime (fixed by 51b0e68cfa0a) and\n"
     "__enqueue_entity left max_slice stale (fixed by 9a8bc9bb4c3f). No tolerance."},
    {"I-LAG",
     "saved lags respect the clamp, a lag within the EEVDF bound is never clamped, and the lags of\n"
     "queued entities sum to zero up to the floor of V",
     "update_entity_lag() clamps V - v to ±calc_delta_fair(max_slice + TICK_NSEC) (mainline;\n"
     "calc_delta_fair(max(2·slice, TICK_NSEC)) before 6e3c0a4e1ad1). Every sleeping task's saved\n"
     "vlag must lie within the profile's bound for the largest slice ever queued (reweight\n"
     "rescales both vlag and the bound by w_old/w_new; on the inverse-weight path the bound is at\n"
     "least the kernel's clamp, which divides by floor(w/1024), and an off-queue rescale carries\n"
     "ceil(bound(w)·w/w')). The clamp only cuts pathological lag: by\n"
     "the EEVDF lag theorem |lag| <= r_max + q, so a V - v within calc_delta_fair(r_max +\n"
     "TICK_NSEC), r_max the largest slice queued at that moment, must leave update_entity_lag()\n"
     "unchanged (a delayed entity's later adjustments are not clamps). For queued entities,\n"
     "Σ w_i·(V - v_i) with the kernel's floored V must lie in (-Σw, 0]: the only rounding is the\n"
     "floor of the average. Judged after every operation on V recomputed from the queue, and at\n"
     "every return of avg_vruntime() on the value the code answered (on --backend kernel the\n"
     "tree's own: a division that does not floor, 650cad561cce undone, is seen there)."},
    {"I-RW",
     "reweight keeps V and preserves w·(V - v) up to the rounding of its divisions",
     "reweight_entity() rescales lag and relative deadline by w_old/w_new around V. V before and\n"
     "after may differ only by the floor of V before (< 1, amplified by (W_rest + w)/(W_rest + w'))\n"
     "plus the truncation of the lag division (< 1): |ΔV| <= (W_rest+w)/(W_rest+w') + 2. A queued\n"
     "entity must land exactly at V - vlag' (V as avg_vruntime() computed it; v6.14-v7.0 re-place\n"
     "it through place_entity(), within 2 ns, which moves V by up to 2·w'/W' more). When entity_lag()\n"
     "clamped the lag (decided against the kernel's own limit, not I-LAG's upper bound) V moves\n"
     "legitimately: v6.9-v6.13's reweight_eevdf() rescales the clamped lag L_c, so V moves by\n"
     "a·(L - L_c)/W' (a = the entity's weight in the average, W' the queue's after) and by no\n"
     "more than the rounding above beyond that, nor beyond the precision of the average's\n"
     "weights: it rescales by the full weights w/w' while avg_vruntime() counts a =\n"
     "scale_load_down(w) = floor(w/1024), which moves V by L_c·(a - a'·w/w')/W' when a share is\n"
     "not a multiple of 1024 (computed exactly while a counts w within one unit of w/1024; at\n"
     "or below 1024 scale_load_down() floors at 2, and that move is reported; v6.14-v7.0 rescale\n"
     "a queued entity's stored lag the same way before place_entity(): the same term); there the entity\n"
     "lands at most floor(clamp(w)·w/w') from V (the clamped lag, truncated: B08 rescales the raw\n"
     "lag). Later kernels' rescaled lag must lie within the new weight's clamp (+1 for the truncation). For a sleeping entity |w'·vlag' - w·vlag| < w'\n"
     "(one truncation). A weight written without reweight_entity() (set_load_weight() of a\n"
     "SCHED_IDLE task before d32960528702) is held to the same bound: it keeps vlag, so w·vlag\n"
     "changes by vlag·(w' - w)."},
    {"I-DL",
     "every queued entity's deadline lies after its vruntime and at most one virtual slice ahead",
     "0 < d - v <= calc_delta_fair(max_slice) + 2 for every queued entity, with max_slice the\n"
     "largest slice ever queued on this cfs_rq (a slice change keeps the old request until it\n"
     "expires). d - v > 0: a request is issued ahead of v and one whose service is complete\n"
     "(v >= d) is renewed by the update_curr() that completed it (update_deadline()), so no\n"
     "queued entity is left at d == v. Rounding: the two truncations of a queued reweight lose\n"
     "at most 2 ns (below). On profiles with the inverse-weight __calc_delta (v7.0 and\n"
     "older) the wmult table exceeds 2^32/w by up to 9.3e-9 relative, which a reweight's\n"
     "rescaling keeps: the bound there is one virtual slice + 2^-26 of it + 1 ns (the same\n"
     "allowance applies to I-LAG's bound). A queued reweight rescales d - V and V - v apart, so\n"
     "while the deadline it left lasts, d - v may lie 2 ns below 0 and E' = (E + 2)·w/w' + 4 ns\n"
     "beyond the slice (E: the drift before), plus what one virtual slice at w rescaled by\n"
     "w/w' exceeds calc_delta_fair(slice) at w' in the kernel's arithmetic (inverse-weight path:\n"
     "floor(0xFFFFFFFF / scale_load_down(w)) of a group weight lies up to w/2^42 relative below\n"
     "2^32/w). Tolerated finding F7: a reweight whose lag\n"
     "entity_lag() clamped leaves the deadline unclamped (--no-tolerance reports it). A\n"
     "deadline set from a stale relative deadline, or pushed forward repeatedly without\n"
     "vruntime following, fails it. Fresh request: a task that was off every queue (asleep; no\n"
     "relative deadline survives a sleep) and joins in an operation that moves no time (a\n"
     "wake-up) has d - v =\n"
     "calc_delta_fair(its own slice) exactly, or half of it at its first enqueue under\n"
     "PLACE_DEADLINE_INITIAL (a task created in the same operation, an RT task and a delayed one\n"
     "are not judged). Reported at site \"place_entity (fresh request)\"."},
    {"I-DELAY",
     "a delayed entity is never curr nor next, its lag does not sink while delayed, and a delayed "
     "group entity keeps its weight",
     "With DELAY_DEQUEUE an ineligible sleeper stays queued as sched_delayed until it is picked\n"
     "(then dequeued) or woken (requeued). It must never become cfs_rq->curr or cfs_rq->next (a\n"
     "pick that returns it, from schedule or from wakeup preemption, must dequeue it in\n"
     "pick_next_entity() instead: a pick that ran it would show as a delayed curr. Excepted, with\n"
     "CPU bandwidth control: a delayed group entity above a throttled queue on the running task's\n"
     "path while a reschedule is pending, where a sched_change's set_next_task_fair() made every\n"
     "level curr after its enqueue stopped at the throttled queue; I-BW's rule 5), and\n"
     "its service lag when it leaves the delayed state is not below the one it had when it was\n"
     "delayed (one weight of rounding allowed). Both are read from the state on every profile:\n"
     "w·clamp(V - v) with the profile's lag clamp when it is delayed and when a wake-up requeues\n"
     "it, w·vlag when it is dequeued at last. Kernels before 059258b0d424 (v7.1) do not save the\n"
     "lag at delay time, and a V that sinks meanwhile deepens the debt (an expected finding).\n"
     "A delayed group entity's queue is empty: it has no share of the group to take, and it burns\n"
     "off its lag at the weight it was delayed with; a reweight of it to another weight is reported\n"
     "at the reweight (site \"update_cfs_group / reweight_entity\"). 66951e4860d3 (6.12.11) made\n"
     "update_cfs_group() leave a group with no load alone; v6.12.0 drops it to MIN_SHARES.\n"
     "Excepted, with CPU bandwidth control: an entity already off its queue whose own queue is\n"
     "loaded again, where unthrottle_cfs_rq() put the unthrottled entity into a delayed ancestor's\n"
     "queue and then finishes that ancestor's delayed dequeue (9b5ce1a37e90): update_cfs_group()\n"
     "runs between on_rq = 0 and the clearing of sched_delayed, and the reweight keeps w·vlag."},
    {"I-PROT",
     "slice protection lasts at most the shortest queued request from a real pick, only shrinks "
     "until the next one, never passes the deadline, the first tick after it ends reschedules, and "
     "a lone fair entity is never rescheduled by a tick",
     "Slice protection (RUN_TO_PARITY, or one normalized base slice without it) lets curr keep\n"
     "the CPU although a queued entity has an earlier deadline. The design since v6.17-v7.0\n"
     "(052c3d87c82e, 74eec63661d4, bcd74b2ffdd0), checked on every profile:\n"
     "  1. at a real pick (set_next_entity(first)) the protected run is at most the shortest\n"
     "     request queued at that moment: end - v <= calc_delta_fair(min(se->slice, the other\n"
     "     queued entities' slices)) in se's virtual time (without RUN_TO_PARITY: one\n"
     "     normalized base slice); up to the deadline when se's own request is the shortest;\n"
     "  2. between real picks it only shrinks: the protected run left in real time,\n"
     "     w·(end - v), never grows (a wake-up may shorten it, a reweight rescales it around\n"
     "     the same point, up to one virtual ns of rounding each); a sched_change's\n"
     "     put_prev/set_next cycle is not a pick and may not re-arm it: where only a real\n"
     "     pick arms it (bcd74b2ffdd0, v7.0 on), a set_next_entity() without one that moves\n"
     "     the end later is reported at that call, F1's tolerance or not (site \"between picks\n"
     "     (sched_change set_next_entity)\");\n"
     "  3. while curr is protected, the end is not after its deadline;\n"
     "  4. once the protection is over, the entity EEVDF would run (the earliest eligible\n"
     "     deadline, not delayed) gets the CPU at the next tick that charges curr time:\n"
     "     update_curr() reschedules an unprotected curr whenever another entity is queued\n"
     "     (0b9ca2dcabc3, v6.17), and the pick that follows takes it. A tick at the clock of\n"
     "     curr's last update (a group entity whose queue a wake-up just updated) returns\n"
     "     early and decides nothing. Not while a next buddy is set (the buddy runs first).\n"
     "     A curr that runs past the end of the request it had when the wait began, with a\n"
     "     new one, is reported at its own site (request renewed): update_deadline()'s\n"
     "     reschedule at a renewal, in every profile, did not happen either (a reweight of\n"
     "     curr rescales the deadline around V and keeps the request: its end is read again);\n"
     "  5. and the converse: a lone fair entity is never rescheduled by the fair class's tick,\n"
     "     at slice expiry or at the end of its protection (there is nobody to switch to). Lone:\n"
     "     curr is the only entity queued on every level of its hierarchy (cfs_rq->nr_queued == 1\n"
     "     up to rq->cfs; on the v7.3-rc single runqueue rq->cfs.h_nr_queued == 1). A delayed\n"
     "     entity counts (it is queued by design, and the pick dequeues it); an RT task does\n"
     "     not (it is not a fair entity: rq->nr_running counts it, cfs_rq->nr_queued does not).\n"
     "     update_curr() tests its own level's count since d4ac164bde7a (v6.12-rc2); between\n"
     "     85e511df3cec (v6.12-rc1) and that fix it tested rq->nr_running, and a lone fair task\n"
     "     beside a queued RT task was rescheduled at every slice expiry. Checked from the\n"
     "     backend's count of ticks whose task_tick_fair() called resched_curr() (both backends).\n"
     "What a user feels follows: an entity that holds the earliest eligible deadline waits at\n"
     "most the protection left, which rules 1-2 bound by its own request (RUN_TO_PARITY; one\n"
     "normalized base slice without it), plus one tick. The end is se->vprot, or on v6.6-v6.12\n"
     "the deadline while the RUN_TO_PARITY stash vlag == deadline holds. v7.3-rc1 (0d1e7a2bab35)\n"
     "caps a shortened protection at the point where curr turns ineligible instead of rule 1's\n"
     "bound: rule 1 is not applied there under PREEMPT_SHORT (docs/profiles.md). Tolerated\n"
     "findings (--no-tolerance reports them): F1/F6, a vprot kept across a sched_change of the\n"
     "running task; F7, an expired vprot that a reweight of the running entity left unrescaled,\n"
     "or a reweight that clamps the lag (v moves, the end stays around V)."},
    {"I-SLICE",
     "every slice is the base slice or a custom slice in 0.1 .. 100 ms",
     "A task without a custom slice has slice == sysctl_sched_base_slice once placed; a custom\n"
     "slice is clamped by __setparam_fair() to [100 us, 100 ms]. No U64_MAX or zero slices.\n"
     "A queued, not delayed group entity's slice is cfs_rq_min_slice() of its own queue: the\n"
     "shortest request below it, which enqueue_task_fair() and dequeue_entities() propagate up\n"
     "the hierarchy (with the min_slice augment) on every change. After a base_slice_ns write\n"
     "an entity keeps a base slice in force earlier in the run until its next update_deadline()\n"
     "or placement, and a group entity one taken from its queue before the write (0.1 .. 100 ms)."},
    {"I-CNT",
     "nr_queued, load.weight, h_nr_queued, h_nr_runnable, h_nr_idle and nr_running are exact",
     "nr_queued = tree entities + on_rq curr; load.weight = Σ queued weights; h_nr_queued = tasks\n"
     "on the queue; h_nr_runnable excludes delayed tasks; h_nr_idle counts SCHED_IDLE tasks;\n"
     "rq->nr_running = h_nr_queued; p->on_rq agrees with se->on_rq. Exact.\n"
     "Per queue (the root and every group's): nr_queued and load.weight count the entities\n"
     "(tasks and group entities) on that queue; h_nr_queued counts the queued tasks whose path of\n"
     "queued entities reaches it; h_nr_runnable those not delayed; h_nr_idle those that are\n"
     "SCHED_IDLE or sit below an idle group strictly beneath it (sched_group_set_idle())."},
    {"I-MONO",
     "vruntime moves only through the operations allowed to move it, and never backwards by running",
     "Running (run, tick, schedule, sleep, exit) only advances the vruntime of an entity that was\n"
     "curr during the operation (set_next_entity() tells the checker); no other entity's vruntime\n"
     "changes and none decreases. Placement (wake, fork), yield's forfeit and reweight (nice,\n"
     "policy, slice) may move it. Exact."},
    {"I-FAIR",
     "over a run where all tasks stay runnable, service stays within the lag bound of the ideal share",
     "A window opens whenever the set of runnable tasks (queued, not delayed), their weights and\n"
     "a busy CPU have stayed the same since the last operation that only let time pass (run,\n"
     "tick, schedule); any wake-up, sleep, renice, yield or delayed entity starts a new one.\n"
     "Within it, task i's service s_i (ns, including time not yet charged by update_curr) is\n"
     "compared with its weighted share T·w_i/W of the total service T. The difference is task i's\n"
     "lag at the window's start minus its lag now. A picked task runs at most one request plus\n"
     "the tick that notices its deadline, so every lag is >= -(r_max + q) (q = TICK_NSEC, or the\n"
     "longest stretch without a tick so far: a request shorter than a tick still runs a whole\n"
     "tick); lags sum to zero, so one task's lag is <= (n-1)·(r_max + q). Hence\n"
     "|s_i - T·w_i/W| <= n·(max_slice + q) for n runnable\n"
     "tasks. (The tighter 2·(r_max + q) fails: three SCHED_IDLE tasks with 100 us slices each\n"
     "overrun by a tick and the nice-0 task falls 2.8 ms behind with r_max + q = 1.1 ms.) Exact\n"
     "rational arithmetic; the worst measured ratio is reported (tests/invariants_fair_test.cpp).\n"
     "Not checked while task groups exist (a task's share is then hierarchical)."},
    {"I-WARN",
     "no WARN_ON_ONCE / BUG_ON of the modelled code fires",
     "The modelled kernel functions raise their WARN_ON_ONCE and BUG_ON conditions as events;\n"
     "on a fixed kernel none may fire (e.g. __sum_w_vruntime_add's 62-bit tripwire, place_entity's\n"
     "zero load, a delayed next buddy, the NULL pick that the kernel dereferences)."},
    {"I-WAKEPICK",
     "a wakeup preemption happens only for the task that EEVDF picks next",
     "When wakeup_preempt_fair() reschedules the running task on behalf of a wakee P because EEVDF\n"
     "would run P (the pick path, PREEMPT_SHORT, or any forced shortcut), the pick that the\n"
     "reschedule performs must return P. Checked at the moment of the decision, against a brute-force\n"
     "pick with exact eligibility over the tree and curr, with PICK_BUDDY, and without curr's slice\n"
     "protection (curr is back in the tree when the reschedule picks). A SCHED_IDLE curr yields to\n"
     "any non-idle wakee by design, without asking EEVDF: for it, the pick that follows must not keep\n"
     "curr by its slice protection alone (f553741ac8c0, v6.15; v6.6 and v6.12 keep it), and the\n"
     "idleness is judged where the two meet (find_matching_se(), 304000390f88): v6.6 asked the\n"
     "task policies first (faa42d29419d, v6.12). Not checked:\n"
     "the NEXT_BUDDY sync shortcut (preempt_sync\n"
     "trusts the buddy), and a brute-force answer that is sched_delayed (that pick dequeues it\n"
     "first, which moves V). Catches forced preemption that bypasses the pick (e837456fdca8, B23).\n"
     "v7.3: checked after set_short_buddy(); a SHORT preemption may run an eligible next buddy whose\n"
     "slice is strictly shorter than P's (set_short_buddy keeps it by design, 8f97b627ff1c)."},
    {"I-FRESH",
     "V is read for a decision only after the running entity has been charged up to now",
     "Placement (place_entity), lag (update_entity_lag) and the pick (pick_eevdf) read V, which\n"
     "includes the running entity's vruntime. The kernel calls update_curr() on every path before\n"
     "such a decision, so that curr's runtime since its last charge is in V. Checked at each such\n"
     "read: if the queue's curr is queued, its exec_start must equal rq_clock_task. A stale curr\n"
     "moves V by its uncharged runtime times w_curr / W, and with it the saved lag and the placement\n"
     "of the entity being decided on. Catches 333238da9a19 (v7.2: requeue_delayed_entity() ran\n"
     "without update_curr(), so a delayed task woken between two ticks was re-placed against a stale\n"
     "V) and the stale-curr fixes of the single runqueue (68e37487810a, 1719d035a6fa)."},
    {"I-HLOAD",
     "on the v7.3 flat runqueue every task's EEVDF weight h_load is at least MIN_SHARES (2) where it\n"
     "is used, and no __calc_prop_weight division has a zero divisor",
     "v7.3-rc1 (85570f10a4c6) queues every task on rq->cfs at se->h_load, the product of its group\n"
     "fractions w_i / W_i (__calc_prop_weight, floored at MIN_SHARES = 2 per level), written only by\n"
     "reweight_eevdf(). Checked where the weight is used: calc_delta_fair() (a zero weight divides\n"
     "by zero in __calc_delta), the sum_w_vruntime terms and the curr terms of avg_vruntime() /\n"
     "vruntime_eligible(), and both weights of place_entity(). h_load stays 0 for a task never\n"
     "enqueued (rq->idle, spec §1); below 2 it would be unrepresentable by the floor. Every level of\n"
     "__calc_prop_weight divides by the load of the queue holding the entity (NICE_0_LOAD at the\n"
     "top): a zero load is the #DE of the v2 task_tick_fair() (throttled curr) and of the empty-\n"
     "cpuset tg_cpus() = 0 bug (spec §5); the model reports it and stops, as the kernel would.\n"
     "Exact; not raised on other profiles (h_load is unused there)."},
    {"I-WAKECOUNT",
     "the wake-up CPU choice counts only the tasks that can run: a delayed (sleeping) task is not work",
     "select_task_rq_fair() judges CPUs by counters: idle_cpu() by rq->nr_running, sched_idle_cpu() by\n"
     "rq->nr_running == h_nr_idle, wake_affine_idle()'s WF_SYNC clause by \"the waker is the only\n"
     "task\". With DELAY_DEQUEUE a task that blocked with negative lag stays queued, asleep, and is\n"
     "still counted. Judged from the tasks: a CPU is idle when nothing can run there, SCHED_IDLE-only\n"
     "when something can and all of it is SCHED_IDLE or below an idle group, free when either (for a\n"
     "SCHED_IDLE wakee from v7.1 on, fd54d81c2c0e: free when idle only).\n"
     "1. At every wake-up CPU choice (a wake without cpu= on several CPUs), on both backends: the CPU\n"
     "the backend chose (the model's select_task_rq_fair(); on --backend kernel the tree's own, told\n"
     "by kernelsrc/glue.c before the wake-up is performed), on the state the choice read. W: the\n"
     "waking CPU, P: the wakee's previous CPU, C: the chosen one; the target select_idle_sibling()\n"
     "starts from is W or P. Affine: W is P, or wake_wide() cannot find it wide (the smaller of the\n"
     "waker's and the wakee's record_wakee() flip counts is below sd_llc_size). From the design:\n"
     "(a) P free => C is W or P, and free: select_idle_sibling() takes a free target, else a free prev;\n"
     "(a') W idle (an interrupt wake-up), W != P, WA_IDLE, affine => C is W or P, and free:\n"
     "wake_affine_idle() makes W the target unless P idles too, and an idle target is kept;\n"
     "(b) WF_SYNC, WA_IDLE, affine, the waker the one task that can run on W (delayed tasks not\n"
     "counted) => C is W or free: the sync clause makes W the target, left only for a free CPU;\n"
     "(c) NO_SIS_UTIL, some CPU free => C free: select_idle_cpu() scans the whole LLC;\n"
     "(d) SMT, NO_SIS_UTIL, has_idle_cores set before the choice, a whole core idle => C is on a\n"
     "whole idle core, or is W, P or the wakee's recent_used_cpu and free (the fast path's earlier\n"
     "answers), or with the SMT_BUDDY_ASSIST RFC an idle sibling of W or P where more than one fair\n"
     "task can run. A CPU whose idle task has a pending reschedule and delayed tasks queued (the\n"
     "load balancer's `migrate`) is no premise until its schedule() has dequeued them. Exact on this\n"
     "topology: one LLC, every CPU allowed, no SD_BALANCE_WAKE, energy model, asymmetric capacity,\n"
     "cluster, per-CPU kthread waker or WF_CURRENT_CPU. Not a property, left to lockstep (every\n"
     "choice against the tree's): WA_WEIGHT's PELT loads (which of W and P is the target otherwise),\n"
     "SIS_UTIL's scan budget (a choice it decides is refused on both backends), which free CPU the\n"
     "scan meets first, and (a') and (b) for a wide wake-up (its target is prev). Planted bugs it\n"
     "finds in the tree's choice and the model's: docs/kernel-backend.md, \"The choice judged by\n"
     "I-WAKECOUNT\".\n"
     "2. After every operation, the backend's own answers against the tasks: idle_cpu() (core.c's\n"
     "test on the backend's counters, the tree's rq->nr_running on the kernel backend; once a pending\n"
     "reschedule is acted on); on the model sched_idle_rq(), the WF_SYNC clause and the\n"
     "SMT_BUDDY_ASSIST RFC's count (model/wake_cpu.hpp); on the kernel backend the tree's own\n"
     "sched_idle_rq() and its own wake_affine_idle() asked of each busy CPU as a WF_SYNC wake-up by\n"
     "its running task of a task last there (it only reads; it answers that CPU exactly when the sync\n"
     "clause holds). Catches aa3ee4f0b754 (v6.16,\n"
     "6.12.y: the sync clause counted delayed tasks, v6.12; part 2, and (b) at a WF_SYNC choice) and\n"
     "the RFC's rejected rq->nr_running form (part 2, and (d)). Every DELAY_DEQUEUE profile and tree\n"
     "breaks sched_idle_rq() and through it (a) and (c) (docs/findings/F9.md): tolerated by default\n"
     "exactly when the answer, or the choice, is the one the counters give with the delayed tasks\n"
     "counted as work. Not checked: rq->ttwu_pending. Exact."},
    {"I-PLACE",
     "placement keeps the saved lag: once placed, an entity's lag V - v is its saved vlag",
     "EEVDF keeps a task's lag across a sleep, a migration and a change of its parameters (PLACE_LAG):\n"
     "place_entity() puts it at V - vlag·(W + w)/W, so that after it joins the average its lag is vlag\n"
     "again (W: the weight already queued, w: its own). Checked at every placement against other\n"
     "queued entities (enqueue_entity(); on the v7.3 flat runqueue, the enqueue of a task that is not\n"
     "running), once the entity counts in V, with the exact average: |(V' - v) - vlag| < 2 (the\n"
     "rounding of avg_vruntime() and of the division). A wrapped lag·load product (F4, F8) breaks it\n"
     "as well as I-OVF. Not checked: PLACE_LAG off, an empty queue (the lag is dropped by design), the\n"
     "placements inside reweight_entity() (I-RW), requeue_delayed_entity() and the flat runqueue's\n"
     "placement of its running task. Needs the model's events: not on --backend kernel."},
    {"I-PELT",
     "a runqueue's PELT sums support its averages: each sum is at least its average x PELT_MIN_DIVIDER",
     "PELT reads an average from its sum, avg = sum / divider, the divider between PELT_MIN_DIVIDER\n"
     "(LOAD_AVG_MAX - 1024 = 46718) and LOAD_AVG_MAX by the position in the period. Between period\n"
     "boundaries a sum only grows; every change made from outside (an entity attached, detached,\n"
     "reweighted, removed) keeps sum >= avg x PELT_MIN_DIVIDER, the bound fair.c restores after each\n"
     "subtraction. Below it, the next period's average falls to what the sum holds: the CPU's load\n"
     "(cpu_load(), read by WA_WEIGHT and the load balancer) drops at once. Checked after every\n"
     "operation on every queue (each CPU's root queue and each group's), for the load, runnable and\n"
     "utilization sums, while PELT is tracked (not the v7.3 flat runqueue: model/fair_pelt.cpp). Catches the\n"
     "max_t(u32, ...) clamps of 6.12.118 and 6.18.0, which store a 64-bit sum cut to 32 bits: a\n"
     "reweight, detach or removal on a queue whose load average passes about 90 000 (two nice -20\n"
     "tasks) drops its load by a third (docs/findings/F10.md; 7.0.0 clamps in the sum's width).\n"
     "Exact."},
    {"I-BW",
     "CPU bandwidth control's throttle state is consistent, and a throttled queue's tasks do not run",
     "With a cpu.max quota a group's queues draw runtime from the group's pool; a queue that runs out\n"
     "is throttled: its group entity leaves the queue above (the hierarchical throttle, 6.12.118,\n"
     "model/fair_bandwidth.cpp) until the period timer refills the pool. Checked after every\n"
     "operation while some group has a quota, on every group queue: (1) throttle_count is the number\n"
     "of throttled queues from it to the root, itself included; (2) a throttled queue's group entity\n"
     "is not queued; (3) a queue is throttled exactly when it is on its group's throttled list, once,\n"
     "and every queue of a group has a quota (runtime_enabled) exactly when the group has; (4) a\n"
     "throttled queue that no CSD is about to unthrottle has no runtime left; and once per CPU (5)\n"
     "the running task is not below a throttled queue unless a reschedule is pending (a throttle at\n"
     "the put-back, or in a sched_change of the running task, leaves one; the report says whether the\n"
     "throttled queue overdrew its runtime: one throttled at exactly 0, by a cpu.max write and a\n"
     "sched_change in the same instant, is labelled zero-time-throttle, docs/model.md). With the hierarchical\n"
     "throttle I-CNT counts a task up to its first throttled queue (the levels above do not), and\n"
     "I-WAKECOUNT does not count a task below a throttled queue as work. v6.18's task-based throttle\n"
     "(v6.18 to v7.1) is judged by its own rules: (2) a queue's limbo list is empty unless the queue is\n"
     "in a throttled hierarchy; (5) the running task may be below a throttled queue while its throttle\n"
     "work is pending (it runs until it returns to user space); and once per CPU (6) a task is\n"
     "throttled exactly when it is on its own queue's limbo list, once, and a limbo task is off the\n"
     "tree, still queued (p->on_rq), awake and not running; I-CNT counts every task on every level and\n"
     "I-WAKECOUNT counts a task below a throttled queue as work. Exact. Not checked yet: the\n"
     "runtime a group uses in a period against its quota and burst, and how long a runnable task of\n"
     "an unthrottled group waits."},
    {"I-IDLE",
     "a CPU runs its idle task only while nothing runnable is queued on it, or with a reschedule pending",
     "The idle loop leaves only on need_resched: a task made runnable on an idle CPU without\n"
     "resched_curr() waits, the CPU idle, until some later event reschedules that CPU (with NO_HZ the\n"
     "idle CPU has no tick). Every path that makes a task runnable asks for it (the wake-up\n"
     "preemption of the idle task; the unthrottle that finds the CPU idle). Checked on every CPU after\n"
     "every operation: if the CPU runs its idle task, its runnable fair tasks (the root queue's\n"
     "h_nr_runnable: delayed tasks and tasks below a throttled queue are not counted) and queued RT\n"
     "tasks number 0, or a reschedule is pending. The model and the kernel backend pick on such a CPU\n"
     "at the next operation; the kernel waits for the next reschedule. 6.12.118 moves a queued task\n"
     "out of a throttled group onto an idle CPU without one (docs/findings/F13.md; e34881c84c25, v7.0).\n"
     "Exact."},
}};

// Where each invariant runs. Lockstep checks the model's run, whose state is
// compared with the kernel's after every operation: every invariant runs there.
// On the kernel's own code the checker hears the tree's functions through the
// glue's events (kernelsrc/glue/events.c), on every tree the backend builds
// (docs/kernel-backend.md, "Versions").
constexpr std::string_view kEverywhere = "model; kernel (every tree); lockstep";
constexpr std::array<std::string_view, kIdCount> kBackends = {{
    kEverywhere,  // NULLPICK
    kEverywhere,  // SUM
    "model; kernel (every tree: at reweight_entity() and place_entity() only, the model's "
    "arithmetic re-run on the tree's operands); lockstep (the model's shadow, its state compared with the "
    "kernel's)",  // OVF
    kEverywhere,  // KEY
    kEverywhere,  // ELIG
    kEverywhere,  // AVG0
    kEverywhere,  // PICKOPT
    kEverywhere,  // AUG
    kEverywhere,  // LAG
    kEverywhere,  // RW
    kEverywhere,  // DL
    kEverywhere,  // DELAY
    kEverywhere,  // PROT
    kEverywhere,  // SLICE
    kEverywhere,  // CNT
    kEverywhere,  // MONO
    kEverywhere,  // FAIR
    "model (its warnings); kernel (every tree: its WARN_ON_ONCE/BUG_ON); lockstep (the "
    "model's)",   // WARN
    kEverywhere,  // WAKEPICK
    kEverywhere,  // FRESH
    "model (v7.3's flat runqueue only); on the kernel's code and in lockstep it runs with nothing to judge: no "
    "tree has that runqueue",  // HLOAD
    kEverywhere,  // WAKECOUNT
    kEverywhere,  // PLACE
    "model; kernel (every tree with the SMP code: 6.6 and 6.12 unless built with EEVDF_KERNEL_SMP=OFF); lockstep",  // PELT
    "model (profile v6.12.118, the profile with CPU bandwidth control); kernel (6.12's tree, built with "
    "CONFIG_CFS_BANDWIDTH; other trees refuse a quota); lockstep",  // BW
    kEverywhere,  // IDLE
}};

}  // namespace

std::string_view id_backends(Id id) { return kBackends[static_cast<std::size_t>(id)]; }
std::string_view id_name(Id id) { return kEntries[static_cast<std::size_t>(id)].name; }
std::string_view id_statement(Id id) { return kEntries[static_cast<std::size_t>(id)].statement; }
std::string_view id_documentation(Id id) { return kEntries[static_cast<std::size_t>(id)].doc; }

std::optional<Id> id_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kIdCount; ++i) {
    const std::string_view n = kEntries[i].name;
    if (name == n || name == n.substr(2)) return static_cast<Id>(i);
  }
  return std::nullopt;
}

namespace {
std::string for_each_name(std::string_view list, bool value, Selection& out) {
  std::size_t pos = 0;
  while (pos < list.size()) {
    std::size_t end = list.find(',', pos);
    if (end == std::string_view::npos) end = list.size();
    const std::string_view item = list.substr(pos, end - pos);
    const auto id = id_from_name(item);
    if (!id) return "unknown invariant '" + std::string(item) + "' (see `eevdf-check explain --list`)";
    out.set(*id, value);
    pos = end + 1;
  }
  return {};
}
}  // namespace

std::string parse_selection(std::string_view only, std::string_view skip, Selection& out) {
  if (!only.empty()) {
    out.on.fill(false);
    if (auto err = for_each_name(only, true, out); !err.empty()) return err;
  }
  return for_each_name(skip, false, out);
}

}  // namespace eevdf::inv
