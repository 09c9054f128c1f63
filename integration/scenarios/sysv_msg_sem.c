// scenario: System V message queues and semaphores: msgsnd/msgrcv by type,
// E2BIG and MSG_NOERROR truncation, IPC_NOWAIT on an empty queue, msgctl
// IPC_STAT and IPC_INFO; semctl SETALL/GETALL/GETVAL/IPC_STAT/IPC_INFO,
// semop and semtimedop that would block, and removal of both.
#include "scenario.h"

#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <time.h>

struct text_msg {
  long mtype;
  char text[64];
};

union semun {
  int val;
  struct semid_ds* buf;
  unsigned short* array;
  struct seminfo* info;
};

static void message_queue(void) {
  int id = SYS(msgget(IPC_PRIVATE, IPC_CREAT | 0600));
  for (int i = 1; i <= 3; i++) {
    struct text_msg m = {i, ""};
    snprintf(m.text, sizeof m.text, "message %d", i);
    SYS(msgsnd(id, &m, strlen(m.text) + 1, 0));
  }
  struct msqid_ds ds;
  SYS(msgctl(id, IPC_STAT, &ds));
  printf("queue: %lu messages, %lu bytes, mode %o\n", (unsigned long)ds.msg_qnum, (unsigned long)ds.__msg_cbytes,
         ds.msg_perm.mode & 0777);
  nd("last send %ld by pid %d\n", (long)ds.msg_stime, ds.msg_lspid);
  struct text_msg r;
  ssize_t n = SYS(msgrcv(id, &r, sizeof r.text, 2, 0));
  printf("by type 2: %zd bytes, type %ld, '%s'\n", n, r.mtype, r.text);
  n = SYS(msgrcv(id, &r, sizeof r.text, 0, 0));
  printf("first: %zd bytes, type %ld, '%s'\n", n, r.mtype, r.text);
  errno = 0;
  n = msgrcv(id, &r, 3, 0, IPC_NOWAIT);
  printf("too small: %zd %s\n", n, errname(errno));
  memset(r.text, 0, sizeof r.text);
  n = SYS(msgrcv(id, &r, 3, 0, IPC_NOWAIT | MSG_NOERROR));
  printf("truncated: %zd '%s'\n", n, r.text);
  errno = 0;
  n = msgrcv(id, &r, sizeof r.text, 0, IPC_NOWAIT);
  printf("empty: %zd %s\n", n, errno == ENOMSG ? "ENOMSG" : errname(errno));
  struct msginfo info;
  int highest = SYS(msgctl(0, IPC_INFO, (struct msqid_ds*)&info));
  printf("msgmax positive: %d\n", info.msgmax > 0);
  nd("highest queue index %d, msgmnb %d\n", highest, info.msgmnb);
  SYS(msgctl(id, IPC_RMID, NULL));
  errno = 0;
  int r2 = msgctl(id, IPC_STAT, &ds);
  printf("after IPC_RMID: %d %s\n", r2, errno == EINVAL || errno == EIDRM ? "gone" : errname(errno));
}

static void semaphores(void) {
  int id = SYS(semget(IPC_PRIVATE, 4, IPC_CREAT | 0600));
  unsigned short init[4] = {1, 2, 3, 4};
  union semun u = {.array = init};
  SYS(semctl(id, 0, SETALL, u));
  struct sembuf ops[2] = {{0, -1, 0}, {3, 5, 0}};
  SYS(semop(id, ops, 2));
  unsigned short got[4] = {0};
  u.array = got;
  SYS(semctl(id, 0, GETALL, u));
  printf("values: %u %u %u %u\n", got[0], got[1], got[2], got[3]);
  printf("GETVAL 3: %d\n", (int)SYS(semctl(id, 3, GETVAL)));
  printf("GETNCNT 0: %d\n", (int)SYS(semctl(id, 0, GETNCNT)));
  printf("GETPID is us: %d\n", (int)SYS(semctl(id, 0, GETPID)) == getpid());
  struct sembuf wait0 = {0, -1, IPC_NOWAIT};
  errno = 0;
  int r = semop(id, &wait0, 1);
  printf("would block: %d %s\n", r, errname(errno));
  wait0.sem_flg = 0;
  struct timespec ts = {0, 2000000};
  errno = 0;
  r = semtimedop(id, &wait0, 1, &ts);
  printf("timed out: %d %s\n", r, errname(errno));
  struct semid_ds ds;
  u.buf = &ds;
  SYS(semctl(id, 0, IPC_STAT, u));
  printf("nsems %lu, mode %o\n", (unsigned long)ds.sem_nsems, ds.sem_perm.mode & 0777);
  struct seminfo si;
  u.info = &si;
  SYS(semctl(0, 0, IPC_INFO, u));
  printf("semmsl positive: %d\n", si.semmsl > 0);
  nd("semmni %d semvmx %d\n", si.semmni, si.semvmx);
  SYS(semctl(id, 0, IPC_RMID));
}

int main(void) {
  message_queue();
  semaphores();
  return 0;
}
