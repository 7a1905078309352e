/* The sched debugfs files: debug.c's base_slice_ns (a plain store) and its
 * print_cfs_rq() reader of avg_vruntime(), alone or racing an operation
 * (its loads and arithmetic, then its stores after the operation ran). */

/* debug.c, 6.12: base_slice_ns is debugfs_create_u32() on sysctl_sched_base_slice,
 * a plain store (normalized_sysctl_sched_base_slice is not touched) */
void kb_write_base_slice_ns(unsigned long long ns) {
  if (kb_crashed) return;
  sysctl_sched_base_slice = (unsigned int)ns;
}

/* ---- the sched debugfs reader: debug.c print_cfs_rq() ---- */
/* a racing reader loses updates only if the tree's avg_vruntime() stores
 * (6.12.118: it re-bases zero_vruntime; 6.18: it only reads) */
int kb_debug_reader_unlocked(void) { return EEVDF_DEBUG_READ_UNLOCKED && EEVDF_AVG_VRUNTIME_STORES; }

/* the reader alone: its avg_vruntime() call, whatever it writes */
void kb_debug_read(int cpu, int queue) {
  if (!kb_crashed) (void)kb_avg_vruntime(cpu, queue);
}

/* the reader's loads and arithmetic: the tree's avg_vruntime() on the queue,
 * its two results handed back, the queue restored (the stores come later) */
void kb_debug_read_load(int cpu, int queue, long long *avg, unsigned long long *zero) {
  struct cfs_rq *q = kb_queue(cpu, queue);
  struct cfs_rq saved = *q;
  kb_rq_at(cpu);
  (void)avg_vruntime(q);
  *avg = KB_SUM_W_VRUNTIME(q);
  *zero = KB_KEY_BASE(q);
  *q = saved;
}

/* the reader's stores, after the operation it raced: whatever that operation
 * wrote to the two fields is lost */
void kb_debug_read_store(int cpu, int queue, long long avg, unsigned long long zero) {
  struct cfs_rq *q = kb_queue(cpu, queue);
  if (kb_crashed) return;
  KB_SUM_W_VRUNTIME(q) = avg;
  KB_KEY_BASE(q) = zero;
}
