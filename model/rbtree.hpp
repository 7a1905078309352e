// An augmented red-black tree that rotates exactly where the kernel's
// lib/rbtree.c rotates (__rb_insert, __rb_erase_augmented, ____rb_erase_color)
// and calls the augment callbacks (propagate, copy, rotate) at the same points,
// so that augmented values, including any a callback leaves stale, are what
// the kernel holds. Leftmost cached as in rb_root_cached.
//
// Node type T must have members: T* rb_parent; T* rb_left; T* rb_right;
// bool rb_red. Callbacks type A must provide:
//   bool compute(T* node)          -- RBCOMPUTE(node, exit): recompute, true if unchanged
//   void copy(T* from, T* to)      -- RBNAME_copy
//   void rotate(T* old, T* new_)   -- RBNAME_rotate
// Follows lib/rbtree.c and include/linux/rbtree_augmented.h (unchanged v6.6 .. v7.1).
#pragma once

namespace eevdf {

template <class T>
class RbTree {
 public:
  T* root() const { return root_; }
  T* leftmost() const { return leftmost_; }
  bool empty() const { return root_ == nullptr; }

  // rb_next(); N is T or const T.
  template <class N>
  static N* next(N* node) {
    if (node->rb_right) {
      node = node->rb_right;
      while (node->rb_left) node = node->rb_left;
      return node;
    }
    N* parent = node->rb_parent;
    while (parent && node == parent->rb_right) {
      node = parent;
      parent = node->rb_parent;
    }
    return parent;
  }

  // rb_add_augmented_cached(): descend left iff less(node, parent), link,
  // propagate(parent, NULL), then rebalance with rotate callbacks.
  template <class Less, class A>
  void add(T* node, Less less, A& aug) {
    T** link = &root_;
    T* parent = nullptr;
    bool is_leftmost = true;
    while (*link) {
      parent = *link;
      if (less(node, parent)) {
        link = &parent->rb_left;
      } else {
        link = &parent->rb_right;
        is_leftmost = false;
      }
    }
    node->rb_parent = parent;
    node->rb_red = true;
    node->rb_left = node->rb_right = nullptr;
    *link = node;
    propagate(parent, nullptr, aug);
    if (is_leftmost) leftmost_ = node;
    insert_fixup(node, aug);
  }

  // rb_erase_augmented_cached()
  template <class A>
  void erase(T* node, A& aug) {
    if (leftmost_ == node) leftmost_ = next(node);
    T* rebalance = erase_augmented(node, aug);
    if (rebalance) erase_color(rebalance, aug);
    node->rb_parent = node->rb_left = node->rb_right = nullptr;
  }

  // RBNAME_propagate(rb, stop): recompute upward until unchanged or stop.
  template <class A>
  static void propagate(T* node, T* stop, A& aug) {
    while (node != stop) {
      if (aug.compute(node)) break;
      node = node->rb_parent;
    }
  }

  void clear() { root_ = leftmost_ = nullptr; }
  // Takes a tree built elsewhere (the kernel backend's mirror of the kernel's tree).
  void assign(T* root, T* leftmost) { root_ = root; leftmost_ = leftmost; }

 private:
  T* root_ = nullptr;
  T* leftmost_ = nullptr;

  static bool is_red(const T* n) { return n && n->rb_red; }
  static bool is_black(const T* n) { return !n || !n->rb_red; }

  void change_child(T* old, T* new_, T* parent) {
    if (parent) {
      if (parent->rb_left == old)
        parent->rb_left = new_;
      else
        parent->rb_right = new_;
    } else {
      root_ = new_;
    }
  }

  // __rb_rotate_set_parents(): new takes old's parent and colour, old goes
  // under new with the given colour.
  void rotate_set_parents(T* old, T* new_, bool old_red) {
    T* parent = old->rb_parent;
    new_->rb_parent = old->rb_parent;
    new_->rb_red = old->rb_red;
    old->rb_parent = new_;
    old->rb_red = old_red;
    change_child(old, new_, parent);
  }

  // __rb_insert()
  template <class A>
  void insert_fixup(T* node, A& aug) {
    T* parent = node->rb_parent;
    while (true) {
      if (!parent) {
        node->rb_parent = nullptr;
        node->rb_red = false;
        break;
      }
      if (!parent->rb_red) break;
      T* gparent = parent->rb_parent;
      T* tmp = gparent->rb_right;
      if (parent != tmp) {  // parent is gparent's left child
        if (is_red(tmp)) {  // case 1: uncle red, recolour
          tmp->rb_red = false;
          parent->rb_red = false;
          node = gparent;
          parent = node->rb_parent;
          node->rb_red = true;
          continue;
        }
        tmp = parent->rb_right;
        if (node == tmp) {  // case 2: left rotate at parent
          tmp = node->rb_left;
          parent->rb_right = tmp;
          node->rb_left = parent;
          if (tmp) {
            tmp->rb_parent = parent;
            tmp->rb_red = false;
          }
          parent->rb_parent = node;
          parent->rb_red = true;
          aug.rotate(parent, node);
          parent = node;
          tmp = node->rb_right;
        }
        // case 3: right rotate at gparent
        gparent->rb_left = tmp;
        parent->rb_right = gparent;
        if (tmp) {
          tmp->rb_parent = gparent;
          tmp->rb_red = false;
        }
        rotate_set_parents(gparent, parent, true);
        aug.rotate(gparent, parent);
        break;
      } else {
        tmp = gparent->rb_left;
        if (is_red(tmp)) {
          tmp->rb_red = false;
          parent->rb_red = false;
          node = gparent;
          parent = node->rb_parent;
          node->rb_red = true;
          continue;
        }
        tmp = parent->rb_left;
        if (node == tmp) {  // case 2: right rotate at parent
          tmp = node->rb_right;
          parent->rb_left = tmp;
          node->rb_right = parent;
          if (tmp) {
            tmp->rb_parent = parent;
            tmp->rb_red = false;
          }
          parent->rb_parent = node;
          parent->rb_red = true;
          aug.rotate(parent, node);
          parent = node;
          tmp = node->rb_left;
        }
        // case 3: left rotate at gparent
        gparent->rb_right = tmp;
        parent->rb_left = gparent;
        if (tmp) {
          tmp->rb_parent = gparent;
          tmp->rb_red = false;
        }
        rotate_set_parents(gparent, parent, true);
        aug.rotate(gparent, parent);
        break;
      }
    }
  }

  // __rb_erase_augmented(): unlink node, return where rebalancing starts.
  template <class A>
  T* erase_augmented(T* node, A& aug) {
    T* child = node->rb_right;
    T* tmp = node->rb_left;
    T* parent;
    T* rebalance;
    if (!tmp) {
      // at most one child, on the right
      parent = node->rb_parent;
      const bool node_red = node->rb_red;
      change_child(node, child, parent);
      if (child) {
        child->rb_parent = parent;
        child->rb_red = node_red;
        rebalance = nullptr;
      } else {
        rebalance = node_red ? nullptr : parent;
      }
      tmp = parent;
    } else if (!child) {
      // only a left child
      tmp->rb_parent = node->rb_parent;
      tmp->rb_red = node->rb_red;
      parent = node->rb_parent;
      change_child(node, tmp, parent);
      rebalance = nullptr;
      tmp = parent;
    } else {
      T* successor = child;
      T* child2;
      tmp = child->rb_left;
      if (!tmp) {
        // the successor is node's right child
        parent = successor;
        child2 = successor->rb_right;
        aug.copy(node, successor);
      } else {
        // the successor is the leftmost node of the right subtree
        do {
          parent = successor;
          successor = tmp;
          tmp = tmp->rb_left;
        } while (tmp);
        child2 = successor->rb_right;
        parent->rb_left = child2;
        successor->rb_right = child;
        child->rb_parent = successor;
        aug.copy(node, successor);
        propagate(parent, successor, aug);
      }
      tmp = node->rb_left;
      successor->rb_left = tmp;
      tmp->rb_parent = successor;
      T* node_parent = node->rb_parent;
      const bool node_red = node->rb_red;
      change_child(node, successor, node_parent);
      if (child2) {
        child2->rb_parent = parent;
        child2->rb_red = false;
        rebalance = nullptr;
      } else {
        rebalance = successor->rb_red ? nullptr : parent;
      }
      successor->rb_parent = node_parent;
      successor->rb_red = node_red;
      tmp = successor;
    }
    propagate(tmp, nullptr, aug);
    return rebalance;
  }

  // ____rb_erase_color()
  template <class A>
  void erase_color(T* parent, A& aug) {
    T* node = nullptr;
    while (true) {
      T* sibling = parent->rb_right;
      if (node != sibling) {  // node is parent's left child
        if (is_red(sibling)) {  // case 1: left rotate at parent
          T* tmp1 = sibling->rb_left;
          parent->rb_right = tmp1;
          sibling->rb_left = parent;
          tmp1->rb_parent = parent;
          tmp1->rb_red = false;
          rotate_set_parents(parent, sibling, true);
          aug.rotate(parent, sibling);
          sibling = tmp1;
        }
        T* tmp1 = sibling->rb_right;
        if (is_black(tmp1)) {
          T* tmp2 = sibling->rb_left;
          if (is_black(tmp2)) {  // case 2: sibling colour flip
            sibling->rb_parent = parent;
            sibling->rb_red = true;
            if (parent->rb_red) {
              parent->rb_red = false;
            } else {
              node = parent;
              parent = node->rb_parent;
              if (parent) continue;
            }
            break;
          }
          // case 3: right rotate at sibling
          tmp1 = tmp2->rb_right;
          sibling->rb_left = tmp1;
          tmp2->rb_right = sibling;
          parent->rb_right = tmp2;
          if (tmp1) {
            tmp1->rb_parent = sibling;
            tmp1->rb_red = false;
          }
          aug.rotate(sibling, tmp2);
          tmp1 = sibling;
          sibling = tmp2;
        }
        // case 4: left rotate at parent and colour flips
        T* tmp2 = sibling->rb_left;
        parent->rb_right = tmp2;
        sibling->rb_left = parent;
        tmp1->rb_parent = sibling;
        tmp1->rb_red = false;
        if (tmp2) tmp2->rb_parent = parent;
        rotate_set_parents(parent, sibling, false);
        aug.rotate(parent, sibling);
        break;
      } else {
        sibling = parent->rb_left;
        if (is_red(sibling)) {  // case 1: right rotate at parent
          T* tmp1 = sibling->rb_right;
          parent->rb_left = tmp1;
          sibling->rb_right = parent;
          tmp1->rb_parent = parent;
          tmp1->rb_red = false;
          rotate_set_parents(parent, sibling, true);
          aug.rotate(parent, sibling);
          sibling = tmp1;
        }
        T* tmp1 = sibling->rb_left;
        if (is_black(tmp1)) {
          T* tmp2 = sibling->rb_right;
          if (is_black(tmp2)) {  // case 2
            sibling->rb_parent = parent;
            sibling->rb_red = true;
            if (parent->rb_red) {
              parent->rb_red = false;
            } else {
              node = parent;
              parent = node->rb_parent;
              if (parent) continue;
            }
            break;
          }
          // case 3: left rotate at sibling
          tmp1 = tmp2->rb_left;
          sibling->rb_right = tmp1;
          tmp2->rb_left = sibling;
          parent->rb_left = tmp2;
          if (tmp1) {
            tmp1->rb_parent = sibling;
            tmp1->rb_red = false;
          }
          aug.rotate(sibling, tmp2);
          tmp1 = sibling;
          sibling = tmp2;
        }
        // case 4: right rotate at parent
        T* tmp2 = sibling->rb_right;
        parent->rb_left = tmp2;
        sibling->rb_right = parent;
        tmp1->rb_parent = sibling;
        tmp1->rb_red = false;
        if (tmp2) tmp2->rb_parent = parent;
        rotate_set_parents(parent, sibling, false);
        aug.rotate(parent, sibling);
        break;
      }
    }
  }
};

}  // namespace eevdf
