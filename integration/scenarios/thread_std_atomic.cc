// scenario: C++ std::atomic: 6 threads increment a shared counter 20,000
// times each with fetch_add, build a lock-free stack with compare_exchange,
// and meet at a spin barrier (no system calls); totals are checked.
// requires: threads
#include "thread_util.h"

#include <atomic>
#include <thread>
#include <vector>

namespace {

constexpr int kThreads = 6, kIncrements = 20000, kNodes = 200;

std::atomic<long> counter{0};
std::atomic<int> arrived{0};

struct Node {
  int value;
  Node* next;
};
Node nodes[kThreads][kNodes];
std::atomic<Node*> top{nullptr};

void work(int id) {
  for (int i = 0; i < kIncrements; i++) counter.fetch_add(1, std::memory_order_relaxed);
  for (int i = 0; i < kNodes; i++) {
    Node* n = &nodes[id][i];
    n->value = id * kNodes + i;
    n->next = top.load(std::memory_order_relaxed);
    while (!top.compare_exchange_weak(n->next, n, std::memory_order_release,
                                      std::memory_order_relaxed)) {
    }
  }
  arrived.fetch_add(1);
  while (arrived.load() != kThreads) {
  }
}

}  // namespace

int main() {
  std::vector<std::thread> threads;
  for (int i = 1; i < kThreads; i++) threads.emplace_back(work, i);
  work(0);
  for (auto& t : threads) t.join();
  long nodes_seen = 0, value_sum = 0;
  for (Node* n = top.load(); n; n = n->next) {
    nodes_seen++;
    value_sum += n->value;
  }
  long n_all = long(kThreads) * kNodes;
  CHECK(counter.load() == long(kThreads) * kIncrements);
  CHECK(nodes_seen == n_all && value_sum == n_all * (n_all - 1) / 2);
  printf("counter %ld, stack of %ld nodes, value sum %ld, lock-free: %s\n", counter.load(),
         nodes_seen, value_sum, counter.is_lock_free() ? "yes" : "no");
  return 0;
}
