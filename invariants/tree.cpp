// I-AUG: the run queue's red-black tree, its order and its augments, checked
// in the walk that sums the queue's exact average (exact_average_and_tree()).
#include <fmt/format.h>

#include "invariants/checker.hpp"
#include "model/fair.hpp"

namespace eevdf::inv {

namespace {

// One recursive walk: the tree's shape, order and augments (the first finding
// noted, in the order of the old separate walk: a node's range, then each
// child's link and colour and its subtree, then the node's black heights and
// augments), and the exact average's terms, added in order.
struct FusedWalk {
  ExactAverage& a;
  TreeFinding& f;
  bool by_vruntime;    // v6.6: ordered by vruntime, augmented with min_deadline
  bool max_slice_aug;  // the max_slice augment is checked (since 6e3c0a4e1ad1)
  bool flat;           // v7.3 flat runqueue: a task weighs its h_load
  bool full_weight;    // the average's weights: full (shifted by sum_shift) or scale_load_down()
  unsigned shift;
  u64 zero;
  bool links_ok = true;  // every child's parent link points to its parent

  void note(TreeFinding::Kind kind, const SchedEntity* se, u64 x = 0, u64 y = 0) {
    if (f.kind == TreeFinding::none) f = {kind, se, x, y};
  }

  // exact_average()'s term for se (avg_vruntime_weight() of eevdf_weight())
  void add(const SchedEntity& se) {
    if (a.queued < a.entities.size()) a.entities[a.queued++] = &se;
    const u64 full = flat && entity_is_task(se) ? se.h_load.weight : se.load.weight;
    u64 w = full;
    if (!full_weight) {
      w = scale_load_down(full);
    } else if (shift) {
      w >>= shift;
      if (w < 2) w = 2;
    }
    a.sum += static_cast<i128>(vruntime_diff(se.vruntime, zero)) * static_cast<i128>(w);
    a.weight += static_cast<i128>(w);
    if (a.min_weight == 0 || full < a.min_weight) a.min_weight = full;
    if (se.slice > a.max_slice) a.max_slice = se.slice;
  }

  // The augments of a subtree, from its root's own values and its children's
  // stored augments: checked node by node in post-order, the first node whose
  // stored augment differs from this is the first whose augment differs from
  // its whole subtree's (its children's were right, or the walk met them first).
  struct Augments {
    u64 min_vruntime, min_slice, max_slice, min_deadline;
    void fold(const SchedEntity& c) {
      if (vruntime_diff(min_vruntime, c.min_vruntime) > 0) min_vruntime = c.min_vruntime;
      if (c.min_slice < min_slice) min_slice = c.min_slice;
      if (c.max_slice > max_slice) max_slice = c.max_slice;
      if (vruntime_diff(min_deadline, c.min_deadline) > 0) min_deadline = c.min_deadline;
    }
    // a node's own values (the whole tree's extremes, one node at a time)
    void add(const SchedEntity& n) {
      if (vruntime_diff(min_vruntime, n.vruntime) > 0) min_vruntime = n.vruntime;
      if (n.slice < min_slice) min_slice = n.slice;
      if (n.slice > max_slice) max_slice = n.slice;
      if (vruntime_diff(min_deadline, n.deadline) > 0) min_deadline = n.deadline;
    }
  };

  // lo/hi: the keys (deadlines; v6.6 vruntimes) of the nearest ancestors this
  // subtree hangs right/left of (nullptr: none); every key inside must lie
  // between them. Returns the subtree's black height.
  int walk(const SchedEntity* n, const u64* lo, const u64* hi) {
    const u64 k = by_vruntime ? n->vruntime : n->deadline;
    if ((lo && vruntime_before(k, *lo)) || (hi && vruntime_before(*hi, k))) note(TreeFinding::order, n);
    const SchedEntity* left = n->rb_left;
    const SchedEntity* right = n->rb_right;
    Augments r{n->vruntime, n->slice, n->slice, n->deadline};
    int height_left = 0, height_right = 0;
    if (left) {
      if (left->rb_parent != n) {
        note(TreeFinding::parent_link, left);
        links_ok = false;
      }
      if (n->rb_red && left->rb_red) note(TreeFinding::red_red, left);
      height_left = walk(left, lo, &k);
      r.fold(*left);
    }
    add(*n);
    if (right) {
      if (right->rb_parent != n) {
        note(TreeFinding::parent_link, right);
        links_ok = false;
      }
      if (n->rb_red && right->rb_red) note(TreeFinding::red_red, right);
      height_right = walk(right, &k, hi);
      r.fold(*right);
    }
    if (height_left != height_right) note(TreeFinding::black_height, n);
    if (by_vruntime) {
      if (n->min_deadline != r.min_deadline) note(TreeFinding::min_deadline, n, n->min_deadline, r.min_deadline);
    } else if (n->min_vruntime != r.min_vruntime) {
      note(TreeFinding::min_vruntime, n, n->min_vruntime, r.min_vruntime);
    } else if (n->min_slice != r.min_slice) {
      note(TreeFinding::min_slice, n, n->min_slice, r.min_slice);
    } else if (n->max_slice != r.max_slice && max_slice_aug) {
      note(TreeFinding::max_slice, n, n->max_slice, r.max_slice);
    }
    return height_left + (n->rb_red ? 0 : 1);
  }
};

}  // namespace

ExactAverage exact_average_and_tree(const CfsRq& cfs_rq) {
  const Profile& profile = cfs_rq.rq->profile();
  ExactAverage a;  // (not value-initialized: no zero-fill of the entity array)
  FusedWalk w{a,
              a.tree,
              tree_by_vruntime(profile),
              profile.behaviour.lag_limit_max_slice,
              profile.behaviour.flat_runqueue,
              profile.behaviour.avg_full_weight,
              cfs_rq.sum_shift,
              cfs_rq.zero_vruntime};
  const auto& tree = cfs_rq.tasks_timeline;
  const SchedEntity* root = tree.root();
  const SchedEntity* first = root;
  if (!root) {
    if (tree.leftmost()) w.note(TreeFinding::empty_leftmost, tree.leftmost());
  } else {
    if (root->rb_red) w.note(TreeFinding::root_red, root);
    if (root->rb_parent) w.note(TreeFinding::root_parent, root);
    while (first->rb_left) first = first->rb_left;
    if (tree.leftmost() != first) w.note(TreeFinding::leftmost, tree.leftmost());
    w.walk(root, nullptr, nullptr);
  }
  // rb_next() from the cached leftmost visits the walk's order only when the
  // links are consistent: else the average is exact_average()'s own walk
  if (!w.links_ok || (root && root->rb_parent) || tree.leftmost() != first) {
    const TreeFinding finding = a.tree;
    a = exact_average(cfs_rq);
    a.tree = finding;
    return a;
  }
  a.in_tree = a.queued;
  a.tree_sum = a.sum;
  a.tree_weight = a.weight;
  if (cfs_rq.curr && cfs_rq.curr->on_rq) w.add(*cfs_rq.curr);
  return a;
}

// --check incremental's part of I-AUG (Checker::end_op_incremental()), noted in
// avg.tree for check_tree(): the root's augments against the whole tree's
// extremes (exact_average()'s entities, in order), and, on the path from each
// touched entity in this tree up to the root, every node's augments against
// its own values and its children's stored augments. Shape, colours and the
// augments off those paths wait for the sweep.
void note_tree_incremental(const CfsRq& cfs_rq, const std::vector<const SchedEntity*>& touched, ExactAverage& avg) {
  const SchedEntity* root = cfs_rq.tasks_timeline.root();
  if (!root || avg.in_tree == 0) return;
  const Profile& profile = cfs_rq.rq->profile();
  const bool by_vruntime = tree_by_vruntime(profile);
  const bool max_slice_aug = profile.behaviour.lag_limit_max_slice;
  using Augments = FusedWalk::Augments;
  TreeFinding& f = avg.tree;
  // a node's augments, recomputed from its values and its children's
  auto local = [](const SchedEntity& n) {
    Augments r{n.vruntime, n.slice, n.slice, n.deadline};
    if (n.rb_left) r.fold(*n.rb_left);
    if (n.rb_right) r.fold(*n.rb_right);
    return r;
  };
  auto judge = [&](const SchedEntity& n, const Augments& r) {
    if (f.kind != TreeFinding::none) return;
    if (by_vruntime) {
      if (n.min_deadline != r.min_deadline) f = {TreeFinding::min_deadline, &n, n.min_deadline, r.min_deadline};
    } else if (n.min_vruntime != r.min_vruntime) {
      f = {TreeFinding::min_vruntime, &n, n.min_vruntime, r.min_vruntime};
    } else if (n.min_slice != r.min_slice) {
      f = {TreeFinding::min_slice, &n, n.min_slice, r.min_slice};
    } else if (n.max_slice != r.max_slice && max_slice_aug) {
      f = {TreeFinding::max_slice, &n, n.max_slice, r.max_slice};
    }
  };
  for (const SchedEntity* t : touched) {
    if (!t->on_rq || t == cfs_rq.curr || t->cfs_rq != &cfs_rq) continue;
    // bounded by the tree's size: a cycle of parent links is the sweep's to report
    std::size_t steps = 0;
    for (const SchedEntity* n = t; n && steps <= avg.in_tree; n = n->rb_parent, ++steps) judge(*n, local(*n));
  }
  const SchedEntity& first = *avg.entities[0];
  Augments whole{first.vruntime, first.slice, first.slice, first.deadline};
  for (std::size_t i = 1; i < avg.in_tree && i < avg.entities.size(); ++i) whole.add(*avg.entities[i]);
  judge(*root, whole);
}

void check_tree(const CheckScope& s) {
  if (!s.on(Id::AUG)) return;
  const TreeFinding& f = s.avg.tree;
  if (f.kind == TreeFinding::none) return;
  const bool by_vruntime = tree_by_vruntime(s.rq.profile());
  std::string what;
  switch (f.kind) {
    case TreeFinding::none: return;
    case TreeFinding::empty_leftmost: what = "the tree is empty but leftmost is cached"; break;
    case TreeFinding::root_red: what = "the root is red"; break;
    case TreeFinding::root_parent: what = "the root has a parent"; break;
    case TreeFinding::leftmost: what = "the cached leftmost is not the first node"; break;
    case TreeFinding::order:
      what = by_vruntime ? "a vruntime lies outside the range of its ancestors: the tree is not sorted by vruntime"
                         : "a deadline lies outside the range of its ancestors: the tree is not sorted by deadline";
      break;
    case TreeFinding::parent_link: what = "a child's parent link does not point to its parent"; break;
    case TreeFinding::red_red: what = "a red node has a red child"; break;
    case TreeFinding::black_height: what = "the two subtrees have different black heights"; break;
    case TreeFinding::min_deadline:
      what = fmt::format("min_deadline is {} but its subtree's earliest deadline is {}", f.x, f.y);
      break;
    case TreeFinding::min_vruntime:
      what = fmt::format("min_vruntime is {} but its subtree's minimum vruntime is {}", f.x, f.y);
      break;
    case TreeFinding::min_slice: what = fmt::format("min_slice is {} but its subtree's minimum slice is {}", f.x, f.y); break;
    case TreeFinding::max_slice: what = fmt::format("max_slice is {} but its subtree's maximum slice is {}", f.x, f.y); break;
  }
  s.report(Id::AUG,
           by_vruntime ? "min_deadline_cb (rb_add_augmented_cached / rb_erase_augmented_cached)"
                       : "min_vruntime_cb (rb_add_augmented_cached / rb_erase_augmented_cached)",
           std::move(what), {f.se});
}

}  // namespace eevdf::inv
