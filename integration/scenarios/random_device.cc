// scenario: std::random_device, which libstdc++ serves with RDRAND where
// the CPU has it (the instruction is in libstdc++.so, patched as the
// library is mapped: see rdrand_values.c): its numbers seed a generator
// whose draws steer the program. They vary from run to run ("~" lines);
// replay must print the recorded ones.
#include <cstdio>
#include <random>

int main() {
  std::random_device device;
  unsigned seed = device();
  std::printf("~seed %x\n", seed);
  std::mt19937 gen(seed ^ device());
  int heads = 0;
  for (int i = 0; i < 100; i++) heads += gen() & 1;
  std::printf("~heads %d\n", heads);
  std::printf("%s\n", heads > 0 && heads < 100 ? "a mix of heads and tails" : "all the same");
  return 0;
}
