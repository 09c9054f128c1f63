// A C++ program for the DAP tests (session_cpp_test.js): a worker thread
// stocks a vector and names it; main totals it through a member function.
// libstdc++'s pretty printers show the vector and the string.
// The comments `LINE name` mark the lines the test expects by name.
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

struct Inventory {
  std::vector<int> counts;
  std::string label = "empty";
  int checks = 0;
  int total() const {
    int t = 0;
    for (int c : counts) t += c;
    return t;
  }
};

static Inventory inv;

static void stock(int n) {
  for (int i = 0; i < n; i++) {  // LINE stock_loop
    inv.counts.push_back(i * 10);  // LINE push
  }
  inv.label = "stocked";  // LINE label
}

int main() {
  std::thread worker(stock, 4);  // LINE spawn
  worker.join();
  inv.checks = inv.total();                                  // LINE checks
  std::printf("%s %d\n", inv.label.c_str(), inv.checks);     // LINE report
  std::fflush(stdout);
  return 0;
}
