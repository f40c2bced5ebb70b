#pragma once
// A monotone priority queue (radix heap, Ahuja, Mehlhorn, Orlin & Tarjan
// 1990) for the max-min propagation of fuzzy connectedness: Dijkstra-like
// algorithms only ever push keys no smaller than the last one popped, which
// lets items sit in 33 buckets by the highest bit in which their key differs
// from the last popped key, and each item move down at most 32 times.
#include <cstdint>
#include <utility>
#include <vector>

namespace lsm {

class MonotoneQueue {
 public:
  /// Adds `item` with `key`; key must be >= the last popped key (since clear()).
  void push(uint32_t key, int64_t item) {
    buckets_[bucket(key)].push_back({key, item});
    ++size_;
  }
  /// Removes an item of the smallest key; false when empty.
  bool pop(uint32_t& key, int64_t& item) {
    if (size_ == 0) return false;
    if (buckets_[0].empty()) {
      int b = 1;
      while (buckets_[b].empty()) ++b;
      uint32_t smallest = buckets_[b].front().first;
      for (const auto& e : buckets_[b]) smallest = e.first < smallest ? e.first : smallest;
      last_ = smallest;
      std::vector<Entry> moving;
      moving.swap(buckets_[b]);
      for (const auto& e : moving) buckets_[bucket(e.first)].push_back(e);
      moving.clear();
      moving.swap(buckets_[b]);  // keep the capacity
    }
    const Entry e = buckets_[0].back();
    buckets_[0].pop_back();
    --size_;
    key = e.first;
    item = e.second;
    return true;
  }
  bool empty() const { return size_ == 0; }
  /// Empties the queue and allows any key again.
  void clear() {
    for (auto& b : buckets_) b.clear();
    size_ = 0;
    last_ = 0;
  }

 private:
  using Entry = std::pair<uint32_t, int64_t>;
  int bucket(uint32_t key) const { return key == last_ ? 0 : 32 - __builtin_clz(key ^ last_); }
  std::vector<Entry> buckets_[33];
  uint32_t last_ = 0;
  size_t size_ = 0;
};

}  // namespace lsm
