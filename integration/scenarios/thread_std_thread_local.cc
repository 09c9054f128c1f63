// scenario: C++ thread_local objects with constructors and destructors
// (run at each thread's exit, in reverse order of construction), std::call_once
// from 4 threads, std::shared_mutex readers and a writer, and distinct
// std::this_thread::get_id() values among threads alive at once.
// requires: threads
#include "thread_util.h"

#include <condition_variable>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

std::mutex log_mu;
std::vector<std::string> events;

void log(const std::string& s) {
  std::lock_guard<std::mutex> g(log_mu);
  events.push_back(s);
}

struct Tracker {
  std::string name;
  explicit Tracker(std::string n) : name(std::move(n)) {}
  ~Tracker() { log("destroyed " + name); }
};

thread_local int calls = 0;
std::once_flag once;
int once_runs = 0;
std::shared_mutex table_mu;
std::vector<int> table(64, 1);
std::set<std::thread::id> ids;
std::condition_variable all_in;

void work(int id) {
  thread_local Tracker first("first-" + std::to_string(id));
  thread_local Tracker second("second-" + std::to_string(id));
  (void)first.name.size();
  (void)second.name.size();
  std::call_once(once, [] { once_runs++; });
  for (int i = 0; i < 100; i++) {
    calls++;
    std::shared_lock<std::shared_mutex> r(table_mu);
    long s = 0;
    for (int v : table) s += v;
    CHECK(s % 64 == 0);  // a writer changes all cells at once
  }
  {
    std::unique_lock<std::shared_mutex> w(table_mu);
    for (int& v : table) v += id;
  }
  std::unique_lock<std::mutex> g(log_mu);
  ids.insert(std::this_thread::get_id());
  if (id >= 10) {  // the concurrent round: stay alive until all four are in
    all_in.notify_all();
    all_in.wait(g, [] { return ids.size() == 4; });
  }
}

}  // namespace

int main() {
  for (int id = 0; id < 4; id++) {
    // One at a time, so the destructor log is in a fixed order.
    std::thread t(work, id);
    t.join();
  }
  for (const auto& e : events) printf("%s\n", e.c_str());
  printf("call_once ran %d time(s); main's thread_local calls %d\n", once_runs, calls);
  long s = 0;
  for (int v : table) s += v;
  printf("table sum %ld\n", s);
  // Ids of joined threads may be reused; those of threads alive together not.
  ids.clear();
  std::vector<std::thread> all;
  for (int id = 0; id < 4; id++) all.emplace_back(work, 10 + id);
  for (auto& t : all) t.join();
  printf("%zu destructor calls in all; 4 threads at once had %zu distinct ids\n", events.size(),
         ids.size());
  CHECK(ids.size() == 4);
  return 0;
}
