/* Set-up: what sched_init() and init_idle() leave (each CPU's runqueue, root
 * queue and idle task, the root task group), the sysctls the scenario
 * sets, and the topology of wake_cpu.c. */

int kb_smp(void) { return EEVDF_SHIM_SMP; }

void kb_init(const struct kb_config *cfg, kb_warn_fn warn, void *ctx) {
  memset(kb_rqs, 0, sizeof kb_rqs);
  memset(kb_cpus, 0, sizeof kb_cpus);
  memset(kb_tasks, 0, sizeof kb_tasks);
  memset(kb_idle_tasks, 0, sizeof kb_idle_tasks);
  memset(kb_groups, 0, sizeof kb_groups);
  memset(kb_group_se, 0, sizeof kb_group_se);
  memset(kb_group_cfs_rq, 0, sizeof kb_group_cfs_rq);
  memset(&root_task_group, 0, sizeof root_task_group);
  kb_nr_tasks = 0;
  kb_nr_groups = 0;
  kb_picking = kb_crashed = 0;
  kb_this_cpu = 0;
  kb_warn_cb = warn;
  kb_warn_ctx = ctx;
  kb_event_cb = NULL;
  kb_event_ctx = NULL;
  kb_enqueuing = NULL;
  kb_lag_placed = 0;
  kb_reweighting = 0;
  kb_deciding = NULL;
  kb_in_update_curr = 0;
  kb_nr_cpus = cfg->nr_cpus >= 1 && cfg->nr_cpus <= KB_MAX_CPUS && EEVDF_SHIM_SMP ? cfg->nr_cpus : 1;
  sysctl_sched_features = cfg->features;
  kb_online_cpus = cfg->ncpus;
  kb_tick_nsec = cfg->tick_nsec;
  normalized_sysctl_sched_base_slice = cfg->normalized_base_slice;
  update_sysctl();
  root_task_group.se = kb_root_se_ptr;
  root_task_group.cfs_rq = kb_root_cfs_rq_ptr;
  root_task_group.shares = ROOT_TASK_GROUP_LOAD;
#if EEVDF_SHIM_SMP
  memset(&kb_rd, 0, sizeof kb_rd);
#endif
  for (unsigned int c = 0; c < kb_nr_cpus; c++) {
    struct rq *rq = &kb_rqs[c];
    kb_root_se_ptr[c] = 0;
    kb_root_cfs_rq_ptr[c] = &rq->cfs;
    rq->cpu = (int)c;
    init_cfs_rq(&rq->cfs);
    rq->cfs.rq = rq;
    rq->cfs.tg = &root_task_group;
    INIT_LIST_HEAD(&rq->leaf_cfs_rq_list);
#if EEVDF_SHIM_SMP
    rq->rd = &kb_rd;
    INIT_LIST_HEAD(&rq->cfs_tasks);
#endif
    rq->tmp_alone_branch = &rq->leaf_cfs_rq_list;
#if EEVDF_TREE_PUT_PREV_NEXT
    kb_idle_tasks[c].sched_class = 0;
#else
    kb_idle_tasks[c].sched_class = &kb_idle_sched_class;  /* 6.6: put by pick_next_task_fair() */
#endif
    kb_idle_tasks[c].cpu = (int)c;
    /* init_idle(): __set_task_cpu(), so the idle task's entity belongs to the
     * CPU's root queue (task_h_load(current) of a sync wake-up from idle) */
    kb_idle_tasks[c].sched_task_group = &root_task_group;
    kb_idle_tasks[c].se.cfs_rq = &rq->cfs;
    rq->curr = rq->donor = rq->idle = &kb_idle_tasks[c];
    rq->clock_update_flags = RQCF_UPDATED;  /* update_rq_clock() at every entry: the clock is the scenario's */
    kb_sync_clock_pelt(rq);
  }
  kb_bandwidth_init();
#if EEVDF_SHIM_SMP
  kb_hz = cfg->hz;
  kb_init_topology(cfg->ncpus);
  kb_init_smt(cfg->smt);
#endif
}

unsigned long long kb_base_slice(void) { return sysctl_sched_base_slice; }
