// A program for the DAP tests (session_test.js): a worker thread fills a
// table and writes one cell past its end, into `guard`; main notices later.
// The comments `LINE name` mark the lines the test expects by name.
// expect-exit: 1
#include <pthread.h>
#include <stdio.h>

struct ledger {
  int cells[4];
  int guard;
};

static struct ledger book = {{0}, 7};

static int square(int x) {
  int product = x * x;  // LINE square_body
  return product;       // LINE square_return
}                       // LINE square_end

static void *worker(void *arg) {
  int n = *(int *)arg;
  for (int i = 0; i <= n; i++) {    // LINE fill_loop
    book.cells[i] = square(i + 1);  // LINE fill_write
  }
  return NULL;  // LINE worker_end
}

int main(void) {
  int n = 4;
  int total = 0;
  pthread_t thread;
  pthread_create(&thread, NULL, worker, &n);  // LINE create
  pthread_join(thread, NULL);                 // LINE join
  for (int i = 0; i < 4; i++) total += book.cells[i];
  printf("total %d guard %d\n", total, book.guard);  // LINE report
  fflush(stdout);
  return book.guard == 7 ? 0 : 1;  // LINE check
}
