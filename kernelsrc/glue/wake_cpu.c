/* The wake-up CPU choice (trees with the SMP code): topology.c's side of it
 * (the scheduling domain, the LLC's shared state, SMT siblings, as
 * sd_init() and sched_cpu_activate() would leave them), core.c's helpers
 * the choice reads (smp_processor_id(), idle_cpu(), cpus_share_cache()),
 * try_to_wake_up()'s select_task_rq() call, and the load balancer's move
 * of a task to another CPU (detach_task() + attach_task() around core.c's
 * deactivate_task()/activate_task()). */

#if EEVDF_SHIM_SMP
/* ---- the wake-up CPU choice: topology.c's side (kernelsrc/shim_smp.h) ----
 * The model's topology (model/wake_cpu.hpp): one last-level cache spanning
 * the profile's online CPUs (`cpus`; at least the runqueues), one domain a
 * CPU with the flags sd_init() gives an LLC domain that is not an SMT level
 * (the balance flags of newidle, exec and fork, SD_WAKE_AFFINE, and the
 * topology flag SD_SHARE_LLC; no SD_BALANCE_WAKE), imbalance_pct 117 (an
 * SD_SHARE_LLC domain's); sd_llc_size the profile's `cpus` (the span's
 * weight, wake_wide()'s factor), sd_llc_id and sd_share_id the span's first
 * CPU; one sched_domain_shared for the LLC, allocated zeroed
 * (has_idle_cores 0; SMT siblings: kb_init_smt()) with nr_idle_scan set to the number of
 * runqueues: SIS_UTIL's scan then visits every CPU the task may run on, so
 * where the model answers (no CPU of the scan is idle for a wake-up, the
 * same for every budget) the kernel's scan finds none either, and where one
 * would be found the comparison shows it. */
DEFINE_PER_CPU(struct sched_domain *, sd_llc);
DEFINE_PER_CPU(int, sd_llc_size);
DEFINE_PER_CPU(int, sd_llc_id);
DEFINE_PER_CPU(int, sd_share_id);
DEFINE_PER_CPU(struct sched_domain_shared *, sd_llc_shared);
DEFINE_PER_CPU(struct sched_domain *, sd_asym_cpucapacity);
DEFINE_PER_CPU(cpumask_var_t, select_rq_mask);
typedef char kb_pcpu_slot_for_every_runqueue[KB_PCPU_NR == KB_MAX_CPUS ? 1 : -1];
unsigned int kb_nr_cpumask_bits = 1;
unsigned int kb_hz = 1000;
static struct sched_domain kb_sd[KB_MAX_CPUS];
static struct sched_domain_shared kb_sd_shared;
static struct cpumask kb_cpus_allowed;  /* p->cpus_ptr of every task: the runqueues */
static struct cpumask kb_idle_allowed[KB_MAX_CPUS];  /* an idle task's: its CPU */
/* SMT (shim_smp.h): each CPU's siblings, itself included, and sched_smt_present */
struct cpumask kb_cpu_sibling_map[KB_PCPU_NR];
int kb_sched_smt_present;

/* The scenario's `smt N` (model/wake_cpu.hpp): CPUs kN .. kN+N-1 of the
 * runqueues are one core (N divides the runqueues: the model checks it; a
 * bad N here leaves each CPU its own core).  sched_cpu_activate() counts
 * sched_smt_present up once a core for the CPU whose activation makes its
 * SMT mask two CPUs wide: any core of two or more CPUs turns it on. */
static void kb_init_smt(unsigned int smt) {
  memset(kb_cpu_sibling_map, 0, sizeof kb_cpu_sibling_map);
  kb_sched_smt_present = 0;
  if (smt < 2 || kb_nr_cpus % smt != 0) smt = 1;
  for (unsigned int c = 0; c < kb_nr_cpus; c++) {
    unsigned int first = c - c % smt;
    for (unsigned int s = first; s < first + smt; s++) kb_cpumask_set_cpu(s, &kb_cpu_sibling_map[c]);
  }
  if (smt >= 2) kb_sched_smt_present = (int)(kb_nr_cpus / smt);
}

/* set_next_task_idle() (idle.c) of a CPU switching to its idle task: its
 * update_idle_core() (sched.h): with sched_smt_present, the tree's
 * __update_idle_core() */
static void kb_set_next_task_idle(struct rq *rq) {
  if (kb_sched_smt_present) __update_idle_core(rq);
}

static void kb_init_topology(unsigned int online) {
  unsigned int span = online > kb_nr_cpus ? online : kb_nr_cpus;
  if (span > NR_CPUS) span = NR_CPUS;
  kb_nr_cpumask_bits = span;
  memset(&kb_cpus_allowed, 0, sizeof kb_cpus_allowed);
  memset(kb_idle_allowed, 0, sizeof kb_idle_allowed);
  memset(kb_sd, 0, sizeof kb_sd);
  memset(&kb_sd_shared, 0, sizeof kb_sd_shared);
  memset(select_rq_mask, 0, sizeof select_rq_mask);
  kb_sd_shared.nr_idle_scan = (int)kb_nr_cpus;
  for (unsigned int c = 0; c < kb_nr_cpus; c++) kb_cpumask_set_cpu(c, &kb_cpus_allowed);
  for (unsigned int c = 0; c < KB_MAX_CPUS; c++) {
    per_cpu(sd_llc, c) = 0;
    per_cpu(sd_llc_shared, c) = 0;
    per_cpu(sd_asym_cpucapacity, c) = 0;
    per_cpu(sd_llc_size, c) = 1;
    per_cpu(sd_llc_id, c) = (int)c;
    per_cpu(sd_share_id, c) = (int)c;
  }
  for (unsigned int c = 0; c < kb_nr_cpus; c++) {
    struct sched_domain *sd = &kb_sd[c];
    for (unsigned int i = 0; i < span; i++) kb_cpumask_set_cpu(i, &sd->span);
    sd->span_weight = span;
    sd->flags = SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE | SD_SHARE_LLC;
    sd->imbalance_pct = 117;
    sd->shared = &kb_sd_shared;
    kb_rqs[c].sd = sd;
    kb_rqs[c].cpu_capacity = SCHED_CAPACITY_SCALE;
    per_cpu(sd_llc, c) = sd;
    per_cpu(sd_llc_size, c) = (int)online;
    per_cpu(sd_llc_id, c) = 0;
    per_cpu(sd_share_id, c) = 0;
    per_cpu(sd_llc_shared, c) = &kb_sd_shared;
    /* init_idle(): a per-CPU kernel thread bound to its CPU */
    kb_cpumask_set_cpu(c, &kb_idle_allowed[c]);
    kb_idle_tasks[c].flags = PF_IDLE | PF_KTHREAD;
    kb_idle_tasks[c].nr_cpus_allowed = 1;
    kb_idle_tasks[c].cpus_ptr = &kb_idle_allowed[c];
  }
}

/* a task the scenario creates: it may run on every runqueue; no wake-up memory yet */
static void kb_init_task_affinity(struct task_struct *p) {
  p->flags = 0;
  p->nr_cpus_allowed = (int)kb_nr_cpus;
  p->cpus_ptr = &kb_cpus_allowed;
  p->last_wakee = 0;
  p->wakee_flips = 0;
  p->wakee_flip_decay_ts = 0;
  p->recent_used_cpu = -1;
}

/* core.c's side of the choice */
int smp_processor_id(void) { return kb_this_cpu; }
struct task_struct *kb_current(void) { return kb_rqs[kb_this_cpu].curr; }
bool in_task(void) { return kb_current() != kb_rqs[kb_this_cpu].idle; }
#if KB_GLUE_IDLE_CPU
/* syscalls.c idle_cpu() (6.18): the idle task runs, nothing is queued, no
 * wake-up is pending (one thread: rq->ttwu_pending is never set) */
int idle_cpu(int cpu) {
  const struct rq *rq = cpu_rq(cpu);
  if (rq->curr != rq->idle) return 0;
  if (rq->nr_running) return 0;
  if (rq->ttwu_pending) return 0;
  return 1;
}
/* syscalls.c available_idle_cpu() (6.18): idle_cpu() and not a preempted
 * vCPU (bare metal); 7.0 has it in sched.h, the tree's */
int available_idle_cpu(int cpu) { return idle_cpu(cpu); }
#endif
bool cpus_share_cache(int this_cpu, int that_cpu) {
  if (this_cpu == that_cpu) return true;
  return per_cpu(sd_llc_id, this_cpu) == per_cpu(sd_llc_id, that_cpu);
}
bool cpus_share_resources(int this_cpu, int that_cpu) {
  if (this_cpu == that_cpu) return true;
  return per_cpu(sd_share_id, this_cpu) == per_cpu(sd_share_id, that_cpu);
}

#endif

#if EEVDF_SHIM_SMP
/* try_to_wake_up()'s select_task_rq() for sleeping fair task `id`, made on
 * CPU `from` (smp_processor_id(); current is the task running there, or its
 * idle task): WF_TTWU, with WF_SYNC for a sync wake-up; the class's
 * select_task_rq_fair() (the tree's) when the task may run on more than one
 * CPU, as core.c asks it (prev_cpu: p->wake_cpu, the task's CPU).  jiffies is
 * the model's: INITIAL_JIFFIES plus the ticks elapsed on the waking CPU.
 * Returns the CPU, or -1 for a task that is not chosen for (queued, new,
 * running, dead, an RT task) or a bad `from`.  Changes record_wakee()'s and
 * select_idle_sibling()'s memory, nothing else: kb_wake() performs it.  The
 * answer is sent as KB_EVENT_WAKE_CHOICE first. */
/* select_idle_cpu(), interposed: whether the choice
 * being made read what the backend does not keep (kb_select_task_rq_wake()) */
static int kb_choice_unknown;
/* update_cfs_rq_h_load()'s caches of every queue (each CPU's root queue, then
 * each group's), kept across a choice that is undone: kb_h_load_keep(0) saves
 * them, kb_h_load_keep(1) puts them back */
static struct kb_h_load_cache {
  unsigned long h_load;
  u64 last_h_load_update;
  struct sched_entity *h_load_next;
} kb_h_load_saved[KB_MAX_GROUPS + 1][KB_MAX_CPUS];
static void kb_h_load_keep(int restore) {
  for (int g = -1; g < kb_nr_groups; g++) {
    for (unsigned int c = 0; c < kb_nr_cpus; c++) {
      struct cfs_rq *q = g < 0 ? &kb_rqs[c].cfs : &kb_group_cfs_rq[g][c];
      struct kb_h_load_cache *k = &kb_h_load_saved[g + 1][c];
      if (!restore) {
        *k = (struct kb_h_load_cache){q->h_load, q->last_h_load_update, q->h_load_next};
        continue;
      }
      q->h_load = k->h_load;
      q->last_h_load_update = k->last_h_load_update;
      q->h_load_next = k->h_load_next;
    }
  }
}
static int select_idle_cpu(struct task_struct *p, struct sched_domain *sd, bool has_idle_core, int target) {
  const int i = kb_tree_select_idle_cpu(p, sd, has_idle_core, target);
  /* under SIS_UTIL the budget decides an idle-core scan (SMT) whatever it
   * finds, and a CPU scan once it meets an idle CPU (model/wake_cpu.cpp) */
  const int found = i >= 0 && (unsigned int)i < kb_nr_cpus;
  if (sched_feat(SIS_UTIL) && (has_idle_core || found) && !kb_choice_unknown) kb_choice_unknown = KB_CHOICE_SIS_UTIL;
  return i;
}
int kb_select_task_rq_wake(int id, int sync, int from) {
  struct task_struct *p = kb_task(id);
  if (!p || kb_crashed || from < 0 || (unsigned int)from >= kb_nr_cpus) return -1;
  if (kb_is_rt(p) || p->on_rq || p->__state != KB_TASK_SLEEPING) return -1;
  kb_rq_at(from);  /* the waker's CPU */
  jiffies = (unsigned long)(unsigned int)(0u - 300u * kb_hz) + kb_rqs[from].clock_task / kb_tick_nsec;
  int wake_flags = WF_TTWU | (sync ? WF_SYNC : 0);
  if (p->nr_cpus_allowed <= 1) return p->cpu;
  struct task_struct *waker = kb_current();
  struct task_struct *const last_wakee = waker->last_wakee;
  const unsigned int flips = waker->wakee_flips;
  const unsigned long decay_ts = waker->wakee_flip_decay_ts;
  const int recent_used_cpu = p->recent_used_cpu;
  const int has_idle_cores = kb_sd_shared.has_idle_cores;
  kb_h_load_keep(0);  /* task_h_load()'s caches, which wake_affine_weight() refreshes */
  kb_choice_unknown = 0;
  const int cpu = select_task_rq_fair(p, p->cpu, wake_flags);
  if (!kb_choice_unknown) {
    /* the answer, told before kb_wake() performs it (I-WAKECOUNT judges it on
     * the state the choice read) */
    struct kb_event e = {0};
    e.kind = KB_EVENT_WAKE_CHOICE;
    e.cpu = from;
    e.queue = -1;
    e.entity = id;
    e.prev_cpu = p->cpu;
    e.chosen_cpu = cpu;
    e.sync = sync ? 1 : 0;
    e.recent_used_cpu = recent_used_cpu;
    e.had_idle_cores = has_idle_cores;
    if (kb_event_cb) kb_event_cb(kb_event_ctx, &e);
    return cpu;
  }
  kb_h_load_keep(1);
  waker->last_wakee = last_wakee;
  waker->wakee_flips = flips;
  waker->wakee_flip_decay_ts = decay_ts;
  p->recent_used_cpu = recent_used_cpu;
  kb_sd_shared.has_idle_cores = has_idle_cores;
  return kb_choice_unknown;
}
#endif

#if EEVDF_SHIM_SMP
/* The load balancer moving a queued task (fair.c detach_task() + attach_task(),
 * core.c deactivate_task()/activate_task()): dequeue on the source with
 * DEQUEUE_NOCLOCK while p->on_rq is TASK_ON_RQ_MIGRATING, set_task_cpu(),
 * enqueue on the destination with ENQUEUE_NOCLOCK | ENQUEUE_MIGRATED
 * (task_on_rq_migrating()), p->on_rq back to TASK_ON_RQ_QUEUED, then
 * wakeup_preempt(rq, p, 0).  A task that is not queued only changes CPU
 * (set_task_cpu(); __set_task_cpu() for a new one). */
int kb_migrate(int id, int cpu) {
  struct task_struct *p = kb_task(id);
  if (!p || cpu < 0 || (unsigned int)cpu >= kb_nr_cpus || kb_crashed) return -1;
  if (p->cpu == cpu) return 0;
  if (!p->on_rq) {
    if (p->__state == KB_TASK_NEW)
      kb_set_task_cpu_only(p, cpu);
    else
      kb_set_task_cpu(p, cpu);
    return 0;
  }
  struct rq *src = kb_rq_of(p);
  p->on_rq = TASK_ON_RQ_MIGRATING;
  dequeue_task_fair(src, p, DEQUEUE_NOCLOCK);
  kb_set_task_cpu(p, cpu);
  struct rq *dst = kb_rq_of(p);
  enqueue_task_fair(dst, p, ENQUEUE_NOCLOCK | ENQUEUE_MIGRATED);
  p->on_rq = TASK_ON_RQ_QUEUED;
  wakeup_preempt(dst, p, 0);
  return 0;
}
#else
int kb_migrate(int id, int cpu) { (void)id; (void)cpu; return -1; }
int kb_select_task_rq_wake(int id, int sync, int from) { (void)id; (void)sync; (void)from; return -1; }
#endif
