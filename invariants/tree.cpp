// I-AUG: the run queue's red-black tree, its order and its augments.
#include <fmt/format.h>

#include "invariants/checker.hpp"

namespace eevdf::inv {

namespace {

struct Subtree {
  u64 min_vruntime;
  u64 min_slice;
  u64 max_slice;
  int black_height;
};

struct TreeWalk {
  const CheckScope& s;
  bool reported = false;

  void fail(const SchedEntity* se, std::string what) {
    if (reported) return;
    reported = true;
    s.report(Id::AUG, "min_vruntime_cb (rb_add_augmented_cached / rb_erase_augmented_cached)", std::move(what), {se});
  }

  // lo/hi: the deadlines of the nearest ancestors this subtree hangs right/left
  // of (nullptr: none); every deadline inside must lie between them.
  Subtree walk(const SchedEntity* n, const u64* lo, const u64* hi) {
    Subtree r{n->vruntime, n->slice, n->slice, 0};
    if ((lo && vruntime_before(n->deadline, *lo)) || (hi && vruntime_before(*hi, n->deadline)))
      fail(n, "a deadline lies outside the range of its ancestors: the tree is not sorted by deadline");
    int heights[2] = {0, 0};
    const SchedEntity* children[2] = {n->rb_left, n->rb_right};
    for (int i = 0; i < 2; ++i) {
      const SchedEntity* c = children[i];
      if (!c) continue;
      if (c->rb_parent != n) fail(c, "a child's parent link does not point to its parent");
      if (n->rb_red && c->rb_red) fail(c, "a red node has a red child");
      const Subtree sub = i == 0 ? walk(c, lo, &n->deadline) : walk(c, &n->deadline, hi);
      if (vruntime_diff(r.min_vruntime, sub.min_vruntime) > 0) r.min_vruntime = sub.min_vruntime;
      if (sub.min_slice < r.min_slice) r.min_slice = sub.min_slice;
      if (sub.max_slice > r.max_slice) r.max_slice = sub.max_slice;
      heights[i] = sub.black_height;
    }
    if (heights[0] != heights[1]) fail(n, "the two subtrees have different black heights");
    if (n->min_vruntime != r.min_vruntime)
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
  TreeWalk w{s};
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
