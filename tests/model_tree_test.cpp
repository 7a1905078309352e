// The augmented red-black tree of model/rbtree.hpp (a transcription of
// lib/rbtree.c) against brute force: random insert/erase sequences of
// SchedEntity nodes keyed by deadline, checking after every operation the
// red-black properties, the BST order (equal deadlines in insertion order),
// parent links, the cached leftmost node and the three augments
// (min_vruntime, min_slice, max_slice) recomputed from scratch.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "model/fair.hpp"
#include "model/rbtree.hpp"
#include "model/sched.hpp"

namespace eevdf {
namespace {

using Tree = RbTree<SchedEntity>;

bool deadline_less(const SchedEntity* a, const SchedEntity* b) { return vruntime_before(a->deadline, b->deadline); }

// Deadlines and vruntimes are drawn in a window of width < 2^63 that
// straddles the u64 wrap, so that the brute-force order (offset from the
// window start) must agree with the kernel's signed-difference order.
constexpr u64 kDeadlineBase = ~u64{0} - 3000;
constexpr u64 kVruntimeBase = ~u64{0} - 500000;

struct Node {
  SchedEntity se;
  u64 seq = 0;  // insertion sequence number
  bool in_tree = false;
};

struct Truth {
  u64 min_voff;  // min (vruntime - kVruntimeBase)
  u64 min_slice;
  u64 max_slice;
};

class TreeChecker {
 public:
  explicit TreeChecker(const std::vector<std::unique_ptr<Node>>& nodes) : nodes_(nodes) {}

  // Returns an empty string if everything holds, else a description of the first failure.
  std::string check_structure(const Tree& tree) {
    const SchedEntity* root = tree.root();
    if (root) {
      if (root->rb_parent) return "root has a parent";
      if (root->rb_red) return "root is red";
    }
    std::string err;
    black_height(root, err);
    if (!err.empty()) return err;

    // In-order traversal vs brute force order (deadline offset, then insertion order).
    std::vector<const SchedEntity*> inorder;
    collect(root, inorder);
    std::vector<const Node*> expect;
    for (const auto& n : nodes_)
      if (n->in_tree) expect.push_back(n.get());
    std::sort(expect.begin(), expect.end(), [](const Node* a, const Node* b) {
      const u64 da = a->se.deadline - kDeadlineBase;
      const u64 db = b->se.deadline - kDeadlineBase;
      return da != db ? da < db : a->seq < b->seq;
    });
    if (inorder.size() != expect.size())
      return "tree has " + std::to_string(inorder.size()) + " nodes, expected " + std::to_string(expect.size());
    for (std::size_t i = 0; i < inorder.size(); ++i)
      if (inorder[i] != &expect[i]->se) return "in-order position " + std::to_string(i) + " differs from brute force";

    // leftmost and next() walk.
    if (tree.leftmost() != (expect.empty() ? nullptr : &expect.front()->se)) return "leftmost is not the minimum";
    std::size_t i = 0;
    for (SchedEntity* n = tree.leftmost(); n; n = Tree::next(n), ++i)
      if (i >= expect.size() || n != &expect[i]->se) return "RbTree::next walk differs at " + std::to_string(i);
    if (i != expect.size()) return "RbTree::next walk too short";
    return {};
  }

  // Compares every node's augments with the recomputed subtree values.
  // Reports which fields are stale (empty if none).
  struct Stale {
    int min_vruntime = 0;
    int min_slice = 0;
    int max_slice = 0;
    bool any() const { return min_vruntime || min_slice || max_slice; }
  };
  Stale check_augments(const Tree& tree) {
    Stale s;
    if (tree.root()) truth(tree.root(), s);
    return s;
  }

 private:
  const std::vector<std::unique_ptr<Node>>& nodes_;

  static int black_height(const SchedEntity* n, std::string& err) {
    if (!n) return 1;
    for (const SchedEntity* c : {n->rb_left, n->rb_right}) {
      if (!c) continue;
      if (c->rb_parent != n) err = "child's parent pointer is wrong";
      if (n->rb_red && c->rb_red) err = "red node with a red child";
    }
    const int l = black_height(n->rb_left, err);
    const int r = black_height(n->rb_right, err);
    if (l != r) err = "unequal black heights";
    return l + (n->rb_red ? 0 : 1);
  }

  static void collect(const SchedEntity* n, std::vector<const SchedEntity*>& out) {
    if (!n) return;
    collect(n->rb_left, out);
    out.push_back(n);
    collect(n->rb_right, out);
  }

  static Truth truth(const SchedEntity* n, Stale& s) {
    Truth t{n->vruntime - kVruntimeBase, n->slice, n->slice};
    for (const SchedEntity* c : {n->rb_left, n->rb_right}) {
      if (!c) continue;
      const Truth ct = truth(c, s);
      t.min_voff = std::min(t.min_voff, ct.min_voff);
      t.min_slice = std::min(t.min_slice, ct.min_slice);
      t.max_slice = std::max(t.max_slice, ct.max_slice);
    }
    if (n->min_vruntime != kVruntimeBase + t.min_voff) s.min_vruntime++;
    if (n->min_slice != t.min_slice) s.min_slice++;
    if (n->max_slice != t.max_slice) s.max_slice++;
    return t;
  }
};

constexpr std::array<u64, 5> kSlices = {100000, 700000, 2800000, 3000000, 100000000};

// A random insert/erase run of `ops` operations on up to `max_nodes` nodes.
// `on_step` is called after every operation and returns false to stop.
template <class OnStep>
void random_run(unsigned seed, int ops, int max_nodes, bool copy_all_fields, OnStep on_step) {
  std::mt19937 rng(seed);
  std::vector<std::unique_ptr<Node>> nodes;
  for (int i = 0; i < max_nodes; ++i) nodes.push_back(std::make_unique<Node>());
  Tree tree;
  MinVruntimeCallbacks cb{copy_all_fields};
  TreeChecker checker(nodes);
  int in_tree = 0;
  u64 seq = 0;
  // Small deadline windows make equal deadlines frequent; the window changes per seed.
  const u64 dl_span = 1 + rng() % 2000;
  for (int op = 0; op < ops; ++op) {
    const bool insert = in_tree == 0 || (in_tree < max_nodes && rng() % 100 < 55);
    if (insert) {
      Node* n = nullptr;
      do n = nodes[rng() % nodes.size()].get();
      while (n->in_tree);
      SchedEntity& se = n->se;
      se.deadline = kDeadlineBase + rng() % dl_span;
      se.vruntime = kVruntimeBase + rng() % 1000000;
      se.slice = (rng() % 4 == 0) ? 100000 + rng() % 5000000 : kSlices[rng() % kSlices.size()];
      // What __enqueue_entity() does before rb_add_augmented_cached().
      se.min_vruntime = se.vruntime;
      se.min_slice = se.slice;
      se.max_slice = se.slice;
      n->seq = seq++;
      n->in_tree = true;
      tree.add(&se, deadline_less, cb);
      ++in_tree;
    } else {
      Node* n = nullptr;
      do n = nodes[rng() % nodes.size()].get();
      while (!n->in_tree);
      tree.erase(&n->se, cb);
      n->in_tree = false;
      --in_tree;
      EXPECT_EQ(n->se.rb_parent, nullptr);
      EXPECT_EQ(n->se.rb_left, nullptr);
      EXPECT_EQ(n->se.rb_right, nullptr);
    }
    if (!on_step(tree, checker, op)) return;
  }
}

class ModelTreeRandom : public ::testing::TestWithParam<unsigned> {};

TEST_P(ModelTreeRandom, MatchesBruteForceWithMultiFieldCallbacks) {
  const unsigned seed = GetParam();
  int checked = 0;
  random_run(seed, 4000, 200, /*copy_all_fields=*/true, [&](const Tree& tree, TreeChecker& checker, int op) {
    const std::string err = checker.check_structure(tree);
    EXPECT_EQ(err, "") << "seed " << seed << " op " << op;
    const auto stale = checker.check_augments(tree);
    EXPECT_FALSE(stale.any()) << "seed " << seed << " op " << op << ": stale min_vruntime " << stale.min_vruntime
                              << ", min_slice " << stale.min_slice << ", max_slice " << stale.max_slice;
    ++checked;
    return err.empty() && !stale.any();
  });
  EXPECT_EQ(checked, 4000);
}

INSTANTIATE_TEST_SUITE_P(Seeds, ModelTreeRandom, ::testing::Values(1u, 2u, 3u, 42u, 1234u, 99991u));

// Many equal deadlines: all nodes share one of two deadlines, so the order is
// almost entirely decided by the "equal keys go right" rule.
TEST(ModelTree, EqualDeadlinesKeepInsertionOrder) {
  std::vector<std::unique_ptr<Node>> nodes;
  for (int i = 0; i < 64; ++i) nodes.push_back(std::make_unique<Node>());
  Tree tree;
  MinVruntimeCallbacks cb{true};
  TreeChecker checker(nodes);
  for (int i = 0; i < 64; ++i) {
    SchedEntity& se = nodes[i]->se;
    se.deadline = kDeadlineBase + (i % 3 == 0 ? 5 : 7);
    se.vruntime = kVruntimeBase + static_cast<u64>(1000 - i);
    se.slice = 700000;
    se.min_vruntime = se.vruntime;
    se.min_slice = se.max_slice = se.slice;
    nodes[i]->seq = static_cast<u64>(i);
    nodes[i]->in_tree = true;
    tree.add(&se, deadline_less, cb);
    ASSERT_EQ(checker.check_structure(tree), "");
  }
  // In-order: the deadline-5 nodes 0, 3, 6, ... then the deadline-7 nodes 1, 2, 4, 5, ...
  int idx = 0;
  SchedEntity* n = tree.leftmost();
  for (int i = 0; i < 64; i += 3, n = Tree::next(n), ++idx) EXPECT_EQ(n, &nodes[i]->se) << idx;
  for (int i = 0; i < 64; ++i) {
    if (i % 3 == 0) continue;
    EXPECT_EQ(n, &nodes[i]->se) << i;
    n = Tree::next(n);
  }
  EXPECT_EQ(n, nullptr);
  // Root augment: min vruntime is node 63's (1000 - 63), slices all equal.
  EXPECT_EQ(tree.root()->min_vruntime, kVruntimeBase + 937);
  EXPECT_EQ(tree.root()->min_slice, 700000u);
  EXPECT_EQ(tree.root()->max_slice, 700000u);
}

// min_vruntime is a signed-difference minimum: a vruntime just below the wrap
// is smaller than one just above it.
TEST(ModelTree, MinVruntimeAcrossWrap) {
  std::array<SchedEntity, 3> se{};
  Tree tree;
  MinVruntimeCallbacks cb{true};
  const std::array<u64, 3> v = {5, ~u64{0} - 2, 100};
  for (std::size_t i = 0; i < se.size(); ++i) {
    se[i].deadline = 1000 + i;
    se[i].vruntime = v[i];
    se[i].slice = 700000 + i;
    se[i].min_vruntime = se[i].vruntime;
    se[i].min_slice = se[i].max_slice = se[i].slice;
    tree.add(&se[i], deadline_less, cb);
  }
  EXPECT_EQ(tree.root(), &se[1]);  // the middle deadline ends up at the root after the rotation
  EXPECT_EQ(tree.root()->min_vruntime, ~u64{0} - 2);
  EXPECT_EQ(tree.root()->min_slice, 700000u);
  EXPECT_EQ(tree.root()->max_slice, 700002u);
  tree.erase(&se[1], cb);
  EXPECT_EQ(tree.root()->min_vruntime, 5u);
  EXPECT_EQ(tree.root()->max_slice, std::max<u64>(700000, 700002));
}

// With RB_DECLARE_CALLBACKS as in v7.1 (copy/rotate carry only min_vruntime),
// a rotation leaves the node moved into the parent position with the
// min_slice/max_slice of its old, smaller subtree. This is the kernel bug
// fixed by 51b0e68cfa0a (RB_DECLARE_CALLBACKS_MULTI). min_vruntime itself
// stays exact, since it is the field the single-field callbacks do copy.
TEST(ModelTree, SingleFieldCallbacksLeaveStaleSlices) {
  constexpr unsigned kMaxSeeds = 50;
  bool found = false;
  unsigned found_seed = 0;
  int found_op = -1;
  TreeChecker::Stale found_stale;
  for (unsigned seed = 1; seed <= kMaxSeeds && !found; ++seed) {
    random_run(seed, 2000, 64, /*copy_all_fields=*/false, [&](const Tree& tree, TreeChecker& checker, int op) {
      // The structure is unaffected by the callbacks.
      EXPECT_EQ(checker.check_structure(tree), "") << "seed " << seed << " op " << op;
      const auto stale = checker.check_augments(tree);
      EXPECT_EQ(stale.min_vruntime, 0) << "seed " << seed << " op " << op;
      if (stale.min_slice || stale.max_slice) {
        found = true;
        found_seed = seed;
        found_op = op;
        found_stale = stale;
        return false;
      }
      return true;
    });
  }
  ASSERT_TRUE(found) << "no stale min_slice/max_slice within " << kMaxSeeds << " seeds";
  RecordProperty("stale_seed", static_cast<int>(found_seed));
  RecordProperty("stale_op", found_op);
  std::printf("stale augment found: seed %u, after op %d (%d stale min_slice, %d stale max_slice)\n", found_seed,
              found_op, found_stale.min_slice, found_stale.max_slice);
  EXPECT_GT(found_stale.min_slice + found_stale.max_slice, 0);
  // The same run with the multi-field callbacks is exact at the same point.
  bool exact = true;
  random_run(found_seed, found_op + 1, 64, /*copy_all_fields=*/true, [&](const Tree& tree, TreeChecker& checker, int) {
    if (checker.check_augments(tree).any()) exact = false;
    return true;
  });
  EXPECT_TRUE(exact) << "seed " << found_seed << " op " << found_op;
}

// A minimal hand-made instance of the same staleness: three inserts in
// ascending deadline order cause one left rotation at the root.
TEST(ModelTree, SingleFieldRotationHandExample) {
  // Insert a (deadline 1, slice 1), b (deadline 2, slice 5), c (deadline 3, slice 9).
  // Inserting c propagates b := {b, c} = min 5 / max 9, then __rb_insert does a
  // left rotation at a and b becomes the root. rotate(a, b) copies into b only
  // min_vruntime (single-field callbacks) and recomputes a, so b keeps the
  // min_slice 5 of its old subtree although the tree's minimum is a's 1.
  for (const bool multi : {false, true}) {
    std::array<SchedEntity, 3> se{};
    const std::array<u64, 3> slices = {1, 5, 9};
    Tree tree;
    MinVruntimeCallbacks cb{multi};
    for (std::size_t i = 0; i < 3; ++i) {
      se[i].deadline = i + 1;
      se[i].vruntime = 10 + i;
      se[i].slice = slices[i];
      se[i].min_vruntime = se[i].vruntime;
      se[i].min_slice = se[i].max_slice = se[i].slice;
      tree.add(&se[i], deadline_less, cb);
    }
    ASSERT_EQ(tree.root(), &se[1]);
    EXPECT_EQ(tree.root()->min_vruntime, 10u);
    EXPECT_EQ(tree.root()->max_slice, 9u);
    if (multi)
      EXPECT_EQ(tree.root()->min_slice, 1u);
    else
      EXPECT_EQ(tree.root()->min_slice, 5u) << "v7.1 callbacks: the new root keeps its old subtree's min_slice";
  }
}

}  // namespace
}  // namespace eevdf
