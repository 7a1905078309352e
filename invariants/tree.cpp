// I-AUG: the run queue's red-black tree, its order and its augments.
#include <fmt/format.h>

#include "invariants/checker.hpp"
#include "model/fair.hpp"

namespace eevdf::inv {

namespace {

struct Subtree {
  u64 min_vruntime;
  u64 min_slice;
  u64 max_slice;
  u64 min_deadline;  // the v6.6 augment
  int black_height;
};

struct TreeWalk {
  const CheckScope& s;
  bool by_vruntime;  // v6.6: ordered by vruntime, augmented with min_deadline
  bool reported = false;

  u64 key(const SchedEntity* n) const { return by_vruntime ? n->vruntime : n->deadline; }

  void fail(const SchedEntity* se, std::string what) {
    if (reported) return;
    reported = true;
    s.report(Id::AUG,
             by_vruntime ? "min_deadline_cb (rb_add_augmented_cached / rb_erase_augmented_cached)"
                         : "min_vruntime_cb (rb_add_augmented_cached / rb_erase_augmented_cached)",
             std::move(what), {se});
  }

  // lo/hi: the keys (deadlines; v6.6 vruntimes) of the nearest ancestors this
  // subtree hangs right/left of (nullptr: none); every key inside must lie between them.
  Subtree walk(const SchedEntity* n, const u64* lo, const u64* hi) {
    Subtree r{n->vruntime, n->slice, n->slice, n->deadline, 0};
    const u64 k = key(n);
    if ((lo && vruntime_before(k, *lo)) || (hi && vruntime_before(*hi, k)))
      fail(n, by_vruntime ? "a vruntime lies outside the range of its ancestors: the tree is not sorted by vruntime"
                          : "a deadline lies outside the range of its ancestors: the tree is not sorted by deadline");
    int heights[2] = {0, 0};
    const SchedEntity* children[2] = {n->rb_left, n->rb_right};
    for (int i = 0; i < 2; ++i) {
      const SchedEntity* c = children[i];
      if (!c) continue;
      if (c->rb_parent != n) fail(c, "a child's parent link does not point to its parent");
      if (n->rb_red && c->rb_red) fail(c, "a red node has a red child");
      const Subtree sub = i == 0 ? walk(c, lo, &k) : walk(c, &k, hi);
      if (vruntime_diff(r.min_vruntime, sub.min_vruntime) > 0) r.min_vruntime = sub.min_vruntime;
      if (sub.min_slice < r.min_slice) r.min_slice = sub.min_slice;
      if (sub.max_slice > r.max_slice) r.max_slice = sub.max_slice;
      if (vruntime_diff(r.min_deadline, sub.min_deadline) > 0) r.min_deadline = sub.min_deadline;
      heights[i] = sub.black_height;
    }
    if (heights[0] != heights[1]) fail(n, "the two subtrees have different black heights");
    if (by_vruntime) {
      if (n->min_deadline != r.min_deadline)
        fail(n, fmt::format("min_deadline is {} but its subtree's earliest deadline is {}", n->min_deadline,
                            r.min_deadline));
    } else if (n->min_vruntime != r.min_vruntime)
      fail(n, fmt::format("min_vruntime is {} but its subtree's minimum vruntime is {}", n->min_vruntime, r.min_vruntime));
    else if (n->min_slice != r.min_slice)
      fail(n, fmt::format("min_slice is {} but its subtree's minimum slice is {}", n->min_slice, r.min_slice));
    else if (n->max_slice != r.max_slice && s.rq.profile().behaviour.lag_limit_max_slice)  // augment since 6e3c0a4e1ad1
      fail(n, fmt::format("max_slice is {} but its subtree's maximum slice is {}", n->max_slice, r.max_slice));
    r.black_height = heights[0] + (n->rb_red ? 0 : 1);
    return r;
  }
};

}  // namespace

void check_tree(const CheckScope& s) {
  if (!s.on(Id::AUG)) return;
  const auto& tree = s.cfs.tasks_timeline;
  const SchedEntity* root = tree.root();
  TreeWalk w{s, tree_by_vruntime(s.rq.profile())};
  if (!root) {
    if (tree.leftmost()) w.fail(tree.leftmost(), "the tree is empty but leftmost is cached");
    return;
  }
  if (root->rb_red) w.fail(root, "the root is red");
  if (root->rb_parent) w.fail(root, "the root has a parent");
  const SchedEntity* first = root;
  while (first->rb_left) first = first->rb_left;
  if (tree.leftmost() != first) w.fail(tree.leftmost(), "the cached leftmost is not the first node");
  w.walk(root, nullptr, nullptr);
}

}  // namespace eevdf::inv
