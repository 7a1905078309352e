/* The events the tree's own functions send (kb_api.h): the ids of entities
 * and queues, the senders, and the tree's functions the glue interposes on
 * (kernelsrc/extract.py renames each tree definition to kb_tree_*; the glue
 * defines the old name around it): place_entity(), enqueue_entity(),
 * dequeue_entity(), account_entity_dequeue(), avg_vruntime(),
 * update_entity_lag(), reweight_entity(); and for the hand-back's marks only
 * (glue/state.h) __enqueue_entity(), __dequeue_entity() and the augmented
 * callbacks' min_vruntime_update() (6.6: min_deadline_update()).  Not
 * core.c: the observation of fair.c's steps, as the model's observer hooks
 * see its own. */

/* ---- ids of entities and queues, for the events and the state export ---- */
static int kb_entity_id(const struct sched_entity *se) {
  if (!se) return -1;
  const struct sched_entity *first = &kb_group_se[0][0];
  if (se >= first && se < first + (size_t)kb_nr_groups * KB_MAX_CPUS)
    return KB_MAX_TASKS + (int)((se - first) / KB_MAX_CPUS);
  const struct task_struct *p = container_of(se, struct task_struct, se);
  if (p >= kb_tasks && p < kb_tasks + kb_nr_tasks) return (int)(p - kb_tasks);
  return -2;
}

static int kb_node_id(const struct rb_node *n) {
  return n ? kb_entity_id(rb_entry(n, struct sched_entity, run_node)) : -1;
}

/* -1: a CPU's root queue; g: group g's queue (of whichever CPU) */
static int kb_queue_id(const struct cfs_rq *q) {
  if (!q) return -2;
  if (q == &q->rq->cfs) return -1;
  const struct cfs_rq *first = &kb_group_cfs_rq[0][0];
  if (q >= first && q < first + (size_t)kb_nr_groups * KB_MAX_CPUS) return (int)((q - first) / KB_MAX_CPUS);
  return -3;
}

/* ---- events of the tree's own functions (kb_api.h) ---- */
void kb_set_event_handler(kb_event_fn fn, void *ctx) {
  kb_event_cb = fn;
  kb_event_ctx = ctx;
}
static kb_listen_fn kb_listen_cb;
void kb_set_listen_query(kb_listen_fn fn) { kb_listen_cb = fn; }
/* whether an event on cfs_rq's CPU is heard (no query: every event is sent):
 * a filter that costs a walk of the queue asks first */
static int kb_listening(const struct cfs_rq *cfs_rq) {
  if (!kb_event_cb) return 0;
  return !kb_listen_cb || kb_listen_cb(kb_event_ctx, kb_cpu_of(cfs_rq->rq));
}
/* e's kind and arguments set, the where filled in here */
static void kb_send(struct kb_event e, const struct cfs_rq *cfs_rq, const struct sched_entity *se) {
  e.cpu = kb_cpu_of(cfs_rq->rq);
  e.queue = kb_queue_id(cfs_rq);
  e.entity = kb_entity_id(se);
  if (kb_event_cb) kb_event_cb(kb_event_ctx, &e);
}
static void kb_emit(int kind, const struct cfs_rq *cfs_rq, const struct sched_entity *se, long long saved_lag) {
  struct kb_event e = {0};
  e.kind = kind;
  e.saved_lag = saved_lag;
  kb_send(e, cfs_rq, se);
}
static void kb_decision_pick(const struct cfs_rq *cfs_rq, const struct sched_entity *se, int protect) {
  if (kb_deciding) {
    kb_decision_picked = 1;
    kb_decision_protect = protect;
  }
  struct kb_event e = {0};
  e.kind = KB_EVENT_DECISION_PICK;
  e.protect = protect;
  e.via_pick_next = EEVDF_TREE_PICK_PROTECT;  /* 7.1: the decision's pick is pick_next_entity()'s */
  e.cpu = kb_cpu_of(cfs_rq->rq);
  e.queue = kb_queue_id(cfs_rq);
  e.entity = se ? kb_entity_id(se) : -1;
  if (kb_event_cb) kb_event_cb(kb_event_ctx, &e);
}
/* entry of a function that reads V (the model's on_read_avg(), I-FRESH) */
static void kb_read_avg(const struct cfs_rq *cfs_rq, int reader) {
  struct kb_event e = {0};
  e.kind = KB_EVENT_READ_AVG;
  e.reader = reader;
  e.cpu = kb_cpu_of(cfs_rq->rq);
  e.queue = kb_queue_id(cfs_rq);
  e.entity = -1;
  if (kb_event_cb) kb_event_cb(kb_event_ctx, &e);
}

/* place_entity() and enqueue_entity(), interposed (kernelsrc/extract.py renames
 * the tree's definitions to kb_tree_*): the tree's functions. place_entity()
 * uses the saved lag when PLACE_LAG is on and the queue holds other entities
 * (the tree's own condition, read at its entry; with se->vlag = 0 the
 * placement is V, the same statement); the event is sent when
 * enqueue_entity() returns, the entity then counted in V, as the model's
 * on_placed(). A placement outside an enqueue (7.0's reweight_entity()
 * re-places with place_entity()) sends none, as in the model. */
static void place_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, int flags) {
  kb_mark_se(se, KB_MARK_FULL);  /* marks last the entry point: one at the entry covers what an event inside reads */
  const int lag_placed = sched_feat(PLACE_LAG) && KB_NR_QUEUED(cfs_rq);
  const long long lag = se->vlag;
  kb_read_avg(cfs_rq, KB_READER_PLACE_ENTITY);
  if (!kb_reweighting) {
    struct kb_event e = {0};
    e.kind = KB_EVENT_PLACING;
    e.initial = (flags & ENQUEUE_INITIAL) != 0;
    kb_send(e, cfs_rq, se);
  }
  kb_tree_place_entity(cfs_rq, se, flags);
  kb_mark_se(se, KB_MARK_FULL);
  if (se == kb_enqueuing) {
    kb_lag_placed = lag_placed;
    kb_placed_lag = lag;
  }
}
static void enqueue_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, int flags) {
  struct sched_entity *outer = kb_enqueuing;
  kb_enqueuing = se;
  kb_lag_placed = 0;
  kb_mark_se_up(se);
  kb_tree_enqueue_entity(cfs_rq, se, flags);
  kb_mark_se_up(se);
  kb_enqueuing = outer;
  if (kb_lag_placed) kb_emit(KB_EVENT_PLACED, cfs_rq, se, kb_placed_lag);
  kb_lag_placed = 0;
}

/* dequeue_entity() and account_entity_dequeue(), interposed: a delay is told
 * once dequeue_entity() returned (nothing follows set_delayed() in it); a
 * deadline made relative (PLACE_REL_DEADLINE, not a sleep) at the
 * account_entity_dequeue() that follows it, before update_cfs_group() can
 * reweight the entity off its queue (the model's on_deadline_made_relative()
 * comes before that reweight's events too). */
static struct sched_entity *kb_dequeuing;
static int kb_dequeue_relative;
#if EEVDF_TREE_DELAY_DEQUEUE
static bool dequeue_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, int flags) {
  struct sched_entity *outer = kb_dequeuing;
  const int outer_relative = kb_dequeue_relative;
  const int delayed = se->sched_delayed;
  kb_dequeuing = se;
  kb_dequeue_relative = se->rel_deadline;
  kb_mark_se_up(se);
  const bool done = kb_tree_dequeue_entity(cfs_rq, se, flags);
  kb_mark_se_up(se);
  kb_dequeuing = outer;
  kb_dequeue_relative = outer_relative;
  if (!delayed && se->sched_delayed) kb_emit(KB_EVENT_DELAYED, cfs_rq, se, 0);
  return done;
}
#else
/* 6.6: nothing is delayed and no deadline made relative (void dequeue_entity()) */
static void dequeue_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, int flags) {
  kb_mark_se_up(se);
  kb_tree_dequeue_entity(cfs_rq, se, flags);
  kb_mark_se_up(se);
}
#endif
static void account_entity_dequeue(struct cfs_rq *cfs_rq, struct sched_entity *se) {
  kb_mark_se(se, KB_MARK_FULL);
  if (se == kb_dequeuing && !kb_dequeue_relative && se->rel_deadline) {
    kb_dequeue_relative = 1;
    kb_emit(KB_EVENT_MADE_RELATIVE, cfs_rq, se, 0);
  }
  kb_tree_account_entity_dequeue(cfs_rq, se);
  kb_mark_se(se, KB_MARK_FULL);
}

/* The weight the tree's avg_vruntime() sums give se on q. */
static __int128 kb_avg_weight(const struct cfs_rq *q, const struct sched_entity *se) {
#if EEVDF_TREE_SUM_SHIFT
  return avg_vruntime_weight((struct cfs_rq *)q, se->load.weight);
#else
  (void)q;
  return scale_load_down(se->load.weight);
#endif
}
/* Whether v is the floor of the weighted average of q's queued entities (the
 * tree's and an on_rq curr): Σ w·(v - v_i) in (-Σ w, 0]. Only a filter: the
 * event it lets through is judged again, by the checker, on the mirrored queue. */
static int kb_avg_is_floor(const struct cfs_rq *q, u64 v) {
  __int128 total = 0, weight = 0;
  const struct sched_entity *curr = q->curr && q->curr->on_rq ? q->curr : NULL;
  for (const struct rb_node *n = rb_first_cached(&q->tasks_timeline); n; n = rb_next(n)) {
    const struct sched_entity *se = rb_entry(n, struct sched_entity, run_node);
    if (se == curr) continue;
    const __int128 w = kb_avg_weight(q, se);
    total += w * (s64)(v - se->vruntime);
    weight += w;
  }
  if (curr) {
    const __int128 w = kb_avg_weight(q, curr);
    total += w * (s64)(v - curr->vruntime);
    weight += w;
  }
  return weight == 0 || (total <= 0 && total > -weight);
}

/* avg_vruntime(), interposed: a V the tree computes that is not the floor of
 * the queued entities' weighted average is sent (KB_EVENT_AVG) for I-LAG (the
 * model's on_avg_vruntime()), judged on the queue as the return leaves it. */
u64 avg_vruntime(struct cfs_rq *cfs_rq) {
  const u64 v = kb_tree_avg_vruntime(cfs_rq);
  if (kb_listening(cfs_rq) && !kb_avg_is_floor(cfs_rq, v)) {
    struct kb_event e = {0};
    e.kind = KB_EVENT_AVG;
    e.avg = v;
    kb_send(e, cfs_rq, NULL);
  }
  return v;
}

/* update_entity_lag(), interposed: the lag it saved and V - v before the
 * clamp (the model's on_lag_clamp()).  V is read after the tree's function
 * ran, which moved only se->vlag: on 6.12.y and 7.0 avg_vruntime() re-bases
 * the key base onto the average it returns (update_zero_vruntime()), so
 * zero_vruntime is V and asking again could move it; 6.18's only reads. */
#if EEVDF_TREE_LAG_RETURNS_BOOL
static bool update_entity_lag(struct cfs_rq *cfs_rq, struct sched_entity *se) {
  kb_mark_se(se, KB_MARK_FULL);
  kb_read_avg(cfs_rq, KB_READER_UPDATE_ENTITY_LAG);
  const bool clipped = kb_tree_update_entity_lag(cfs_rq, se);
  kb_mark_se(se, KB_MARK_FULL);
#else
static void update_entity_lag(struct cfs_rq *cfs_rq, struct sched_entity *se) {
  kb_mark_se(se, KB_MARK_FULL);
  kb_read_avg(cfs_rq, KB_READER_UPDATE_ENTITY_LAG);
  kb_tree_update_entity_lag(cfs_rq, se);
  kb_mark_se(se, KB_MARK_FULL);
#endif
#if KB_AVG_VRUNTIME_READS_ONLY
  const u64 v = avg_vruntime(cfs_rq);  /* 6.18 and 6.6: avg_vruntime() only reads */
#else
  const u64 v = KB_KEY_BASE(cfs_rq);
#endif
  struct kb_event e = {0};
  e.kind = KB_EVENT_LAG;
  e.lag_raw = (long long)(v - se->vruntime);
  e.lag_saved = se->vlag;
  kb_send(e, cfs_rq, se);
#if EEVDF_TREE_LAG_RETURNS_BOOL
  return clipped;
#endif
}

/* reweight_entity(), interposed: the tree's function begins, for a queued
 * entity, with the queue's update_curr(); the wrapper runs it first (a second
 * update_curr() at the same clock returns at once: no time passed) so that
 * the begin event sees the state the model's on_reweight_begin() sees.  From
 * 6.14 on (6d71a9c61604) an entity off its queue with a relative deadline has
 * it rescaled by old/new weight (6.12's reweight_entity() rescales vlag only). */
static void reweight_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, unsigned long weight) {
  kb_mark_se(se, KB_MARK_FULL);
#if EEVDF_TREE_REWEIGHT_UPDATES_CURR_ONLY
  if (se->on_rq && cfs_rq->curr == se) update_curr(cfs_rq);  /* 6.6: only for curr, as the tree */
#else
  if (se->on_rq) update_curr(cfs_rq);
#endif
  struct kb_event e = {0};
  e.kind = KB_EVENT_REWEIGHT_BEGIN;
  e.weight = weight;
  e.old_weight = se->load.weight;
  e.old_relative = se->deadline;
  const int relative_off_queue = !se->on_rq && se->rel_deadline;
  kb_send(e, cfs_rq, se);
  ++kb_reweighting;
  kb_tree_reweight_entity(cfs_rq, se, weight);
  kb_mark_se(se, KB_MARK_FULL);
  --kb_reweighting;
#if KB_REWEIGHT_RESCALES_RELATIVE
  if (relative_off_queue) {
    e.kind = KB_EVENT_RELATIVE_RESCALED;
    kb_send(e, cfs_rq, se);
  }
#else
  (void)relative_off_queue;
#endif
  e.kind = KB_EVENT_REWEIGHT_END;
  kb_send(e, cfs_rq, se);
}

/* ---- the hand-back's marks of the tree's nodes (kb_export()) ---- */
/* n, the nodes above it, and the children of each: the nodes an insertion at
 * n, or an erasure whose rebalancing starts at n, may recolour or relink
 * (every rotation is told to min_vruntime_update() below as well) */
static void kb_mark_tree_path(const struct rb_node *n) {
  for (; n; n = rb_parent(n)) {
    kb_mark_tree_node(rb_entry(n, struct sched_entity, run_node));
    if (n->rb_left) kb_mark_tree_node(rb_entry(n->rb_left, struct sched_entity, run_node));
    if (n->rb_right) kb_mark_tree_node(rb_entry(n->rb_right, struct sched_entity, run_node));
  }
}
/* __enqueue_entity() and __dequeue_entity(), interposed: the entity, and the
 * nodes the tree's rebalancing may have changed: after an insertion the path
 * from the new node up; after an erasure the path from where the erasure
 * left its subtree (the successor's old parent, or the successor when it was
 * the right child, for a node with two children; the parent otherwise; the
 * one child for a root without a parent), read before it. */
static void __enqueue_entity(struct cfs_rq *cfs_rq, struct sched_entity *se) {
  kb_mark_se(se, KB_MARK_FULL);
  kb_tree___enqueue_entity(cfs_rq, se);
  kb_mark_tree_path(&se->run_node);
}
static void __dequeue_entity(struct cfs_rq *cfs_rq, struct sched_entity *se) {
  kb_mark_se(se, KB_MARK_FULL);
  const struct rb_node *n = &se->run_node, *from;
  if (n->rb_left && n->rb_right) {
    const struct rb_node *succ = n->rb_right;
    while (succ->rb_left) succ = succ->rb_left;
    from = succ == n->rb_right ? succ : rb_parent(succ);
  } else {
    from = rb_parent(n) ? rb_parent(n) : n->rb_left ? n->rb_left : n->rb_right;
  }
  kb_tree___dequeue_entity(cfs_rq, se);
  kb_mark_tree_path(from);
}
/* the augmented callbacks' compute (RB_DECLARE_CALLBACKS: propagate() on the
 * nodes it updates, with exit; rotate() on the old top of every rotation,
 * without), interposed: the node; for a rotation also its children (one of
 * them moved to it), its parent (the new top) and the parent's parent (its
 * child link moved) */
static void kb_mark_rotation(const struct sched_entity *se) {
  const struct rb_node *n = &se->run_node;
  kb_mark_tree_node(se);
  if (n->rb_left) kb_mark_tree_node(rb_entry(n->rb_left, struct sched_entity, run_node));
  if (n->rb_right) kb_mark_tree_node(rb_entry(n->rb_right, struct sched_entity, run_node));
  for (int up = 0; up < 2 && (n = rb_parent(n)); up++) kb_mark_tree_node(rb_entry(n, struct sched_entity, run_node));
}
#if EEVDF_TREE_MIN_DEADLINE
static bool min_deadline_update(struct sched_entity *se, bool exit) {
  const bool done = kb_tree_min_deadline_update(se, exit);
  if (exit)
    kb_mark_tree_node(se);
  else
    kb_mark_rotation(se);
  return done;
}
#else
static bool min_vruntime_update(struct sched_entity *se, bool exit) {
  const bool done = kb_tree_min_vruntime_update(se, exit);
  if (exit)
    kb_mark_tree_node(se);  /* after: the compute writes se */
  else
    kb_mark_rotation(se);
  return done;
}
#endif
