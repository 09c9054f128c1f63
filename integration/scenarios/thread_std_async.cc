// scenario: C++ std::async (launch::async and deferred), std::future,
// std::promise between threads, std::packaged_task, and an exception carried
// across threads by a future.
// requires: threads
#include "thread_util.h"

#include <future>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

uint64_t hash_range(int from, int to) {
  uint64_t h = FNV_INIT;
  for (int i = from; i < to; i++) h = fnv1a(&i, sizeof i, h);
  return h;
}

long sum_range(int from, int to) {
  long s = 0;
  for (int i = from; i < to; i++) s += i;
  return s;
}

}  // namespace

int main() {
  std::vector<std::future<long>> parts;
  for (int k = 0; k < 4; k++)
    parts.push_back(std::async(std::launch::async, sum_range, k * 25000, (k + 1) * 25000));
  long total = 0;
  for (auto& f : parts) total += f.get();
  printf("async sum of 0..99999: %ld\n", total);
  CHECK(total == 99999L * 100000 / 2);

  // Deferred: runs in the thread that calls get(), not in a new one.
  pid_t main_tid = thread_tid();
  auto deferred = std::async(std::launch::deferred, [] { return thread_tid(); });
  auto async_tid = std::async(std::launch::async, [] { return thread_tid(); });
  printf("deferred ran in main: %s, async ran elsewhere: %s\n",
         deferred.get() == main_tid ? "yes" : "no", async_tid.get() != main_tid ? "yes" : "no");

  std::promise<std::string> promise;
  std::future<std::string> from_thread = promise.get_future();
  std::thread setter([&promise] { promise.set_value("value from a thread"); });
  printf("promise: %s\n", from_thread.get().c_str());
  setter.join();

  std::packaged_task<uint64_t(int, int)> task(hash_range);
  std::future<uint64_t> hashed = task.get_future();
  std::thread runner(std::move(task), 0, 100000);
  uint64_t h = hashed.get();
  runner.join();
  CHECK(h == hash_range(0, 100000));
  printf("packaged_task hash %016llx\n", (unsigned long long)h);

  auto failing = std::async(std::launch::async, []() -> int { throw std::runtime_error("thrown in a worker"); });
  try {
    failing.get();
    printf("no exception?\n");
  } catch (const std::runtime_error& e) {
    printf("exception through the future: %s\n", e.what());
  }
  return 0;
}
