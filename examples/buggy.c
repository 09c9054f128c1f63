// A small program with a memory-corruption bug: a loop writes one element
// past the end of `scores`, overwriting `limit` next to it. The symptom
// shows up much later. Debug the recording backwards to find the culprit:
//   watch limit, reverse-continue -> the line that wrote it.
#include <stdio.h>
#include <stdlib.h>

struct table {
  int scores[8];
  int limit;
};

static struct table t = {{0}, 100};

static void fill(int n) {
  for (int i = 0; i <= n; i++) {  // BUG: <= writes scores[8], i.e. limit
    t.scores[i] = i * i;
  }
}

static int count_over(int threshold) {
  int count = 0;
  for (int i = 0; i < 8; i++) {
    if (t.scores[i] > threshold) count++;
  }
  return count;
}

int main(void) {
  printf("limit starts at %d\n", t.limit);
  fill(8);
  int over = count_over(10);
  printf("%d scores over 10\n", over);
  if (t.limit != 100) {
    printf("limit is now %d: corrupted!\n", t.limit);
    return 1;
  }
  return 0;
}
