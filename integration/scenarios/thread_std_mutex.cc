// scenario: C++ std::thread, std::mutex and std::condition_variable: 3
// producers and 2 consumers share a bounded std::deque (capacity 16); every
// item is consumed once, and the totals are checked.
// requires: threads
#include "thread_util.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace {

constexpr int kProducers = 3, kConsumers = 2, kItems = 1000, kCapacity = 16;

std::mutex mu;
std::condition_variable not_full, not_empty;
std::deque<long> queue;
int producers_left = kProducers;

void produce(int id) {
  for (int i = 0; i < kItems; i++) {
    std::unique_lock<std::mutex> lock(mu);
    not_full.wait(lock, [] { return queue.size() < kCapacity; });
    queue.push_back(long(id) * 1000000 + i);
    not_empty.notify_one();
  }
  std::lock_guard<std::mutex> lock(mu);
  if (--producers_left == 0) not_empty.notify_all();
}

void consume(long* sum, int* count) {
  for (;;) {
    std::unique_lock<std::mutex> lock(mu);
    not_empty.wait(lock, [] { return !queue.empty() || producers_left == 0; });
    if (queue.empty()) return;
    *sum += queue.front();
    queue.pop_front();
    ++*count;
    not_full.notify_one();
  }
}

}  // namespace

int main() {
  std::vector<std::thread> threads;
  long sums[kConsumers] = {};
  int counts[kConsumers] = {};
  for (int c = 0; c < kConsumers; c++) threads.emplace_back(consume, &sums[c], &counts[c]);
  for (int p = 0; p < kProducers; p++) threads.emplace_back(produce, p);
  for (auto& t : threads) t.join();
  long total = 0;
  int n = 0;
  for (int c = 0; c < kConsumers; c++) {
    nd("consumer %d took %d items\n", c, counts[c]);
    total += sums[c];
    n += counts[c];
  }
  long expect = 0;
  for (int p = 0; p < kProducers; p++)
    for (int i = 0; i < kItems; i++) expect += long(p) * 1000000 + i;
  CHECK(n == kProducers * kItems && total == expect);
  printf("%d items, sum %ld; hardware_concurrency > 0: %s\n", n, total,
         std::thread::hardware_concurrency() > 0 ? "yes" : "no");
  return 0;
}
