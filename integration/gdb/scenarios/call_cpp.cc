// scenario: function calls during replay in C++: members of std::string and
// scenario: std::vector called in a diversion (size(), operator[], a
// scenario: substr() returned by value), with and without libstdc++'s pretty
// scenario: printers and xmethods, and a call in a second thread
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

static int total;

int triple(int x) { return 3 * x; }

void visit(const std::string& s, const std::vector<int>& v) {
  total += static_cast<int>(s.size()) + v[2];
}

void work(int id) {
  total += triple(id);
}

int main() {
  std::string s = "recorded string";
  std::vector<int> v = {10, 20, 30, 40};
  for (int i = 0; i < 3; i++) {
    v.push_back(i);
    visit(s, v);
  }
  std::thread t(work, 7);
  t.join();
  std::printf("total=%d\n", total);
  return 0;
}
