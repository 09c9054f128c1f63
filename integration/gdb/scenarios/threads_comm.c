// scenario: thread names written to /proc rather than with prctl: main names
// a worker with pthread_setname_np (which writes /proc/self/task/TID/comm),
// a worker names itself through /proc/thread-self/comm, and main renames
// the process's first thread through /proc/self/comm. gdb's `info threads`
// shows each name from the write on, the old names again after a
// reverse-continue to before it, and the new one again when a checkpoint
// taken between an open of a comm file and the write runs on.
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define WORKERS 2

static int go[WORKERS][2];
static volatile pid_t tids[WORKERS];

// Where gdb looks: before and after the names are written, and between
// the open of /proc/self/comm and the write.
static void before_names(void) {}
static void comm_opened(void) {}
static void names_set(void) {}

static void write_comm(const char* path, const char* name) {
  int fd = open(path, O_WRONLY);
  if (fd < 0 || write(fd, name, strlen(name)) != (ssize_t)strlen(name)) perror(path);
  close(fd);
}

static void* worker(void* arg) {
  long id = (long)arg;
  if (id == 2) write_comm("/proc/thread-self/comm", "self-via-proc");
  tids[id - 1] = gettid();
  char c;
  read(go[id - 1][0], &c, 1);
  return NULL;
}

// Whether thread `tid` is in a read() call.
static int in_read(pid_t tid) {
  char path[64], text[128] = "";
  snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
  FILE* f = fopen(path, "r");
  if (!f) return 0;
  fgets(text, sizeof text, f);
  fclose(f);
  return strncmp(text, "0 ", 2) == 0;
}

int main(void) {
  pthread_t threads[WORKERS];
  for (long i = 0; i < WORKERS; i++) {
    pipe(go[i]);
    pthread_create(&threads[i], NULL, worker, (void*)(i + 1));
  }
  for (int i = 0; i < WORKERS; i++) {
    while (tids[i] == 0 || !in_read(tids[i])) usleep(1000);
  }
  before_names();
  int err = pthread_setname_np(threads[0], "set-by-main");
  if (err != 0) fprintf(stderr, "pthread_setname_np: %s\n", strerror(err));
  int fd = open("/proc/self/comm", O_WRONLY);
  comm_opened();
  if (fd < 0 || write(fd, "main-via-proc", 13) != 13) perror("/proc/self/comm");
  close(fd);
  names_set();
  for (int i = 0; i < WORKERS; i++) write(go[i][1], "x", 1);
  for (int i = 0; i < WORKERS; i++) pthread_join(threads[i], NULL);
  printf("%d workers done\n", WORKERS);
  return 0;
}
