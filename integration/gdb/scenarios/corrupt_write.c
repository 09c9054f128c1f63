// scenario: a stray write one past the end of an array corrupts the variable
// scenario: next to it; a watchpoint and reverse-continue find the write
// expect-exit: 1
#include <stdio.h>

struct account {
  int history[4];
  int balance;
};

static struct account acct = {{0, 0, 0, 0}, 100};

static void log_deposit(int slot, int amount) {
  int* entry = acct.history + slot;  // slot 4 is one past the end
  *entry = amount;
}

int main(void) {
  static const int deposits[5] = {5, 10, 15, 20, 25};
  for (int i = 0; i < 5; i++) {
    acct.balance += deposits[i];
    log_deposit(i, deposits[i]);
  }
  if (acct.balance != 175) {
    printf("balance %d, expected 175\n", acct.balance);
    return 1;
  }
  return 0;
}
