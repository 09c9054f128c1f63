// scenario: syscall buffering of file I/O: hundreds of read/write/pread64/
// pwrite64/lseek/fstat/fstatfs/getdents64 calls on input files, on a file
// the program creates and on a directory, reads of /dev/zero and
// /dev/urandom, writes to /dev/null, getpid/gettid/clock_gettime/uname/
// getcwd/readlink/newfstatat/statx/access/getrandom, and the same calls
// through glibc's syscall() function (another call site). Each call is made
// in a loop, so its site is patched at the first traced call and the later
// ones are buffered; replay must give back every result with the inputs gone.
// input-random: data.bin 65536
// input-lines: lines.txt 400
// expect-buffered: 5000
#include "scenario.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>

#define ROUNDS 300

static uint64_t hash_file_by_reads(const char* name, size_t chunk) {
  char buf[4096];
  int fd = SYS(open(name, O_RDONLY | O_CLOEXEC));
  uint64_t h = FNV_INIT;
  ssize_t n;
  while ((n = SYS(read(fd, buf, chunk))) > 0) h = fnv1a(buf, (size_t)n, h);
  SYS(close(fd));
  return h;
}

// The directory d/ with 24 files; listed again and again (getdents64 and
// the lseek of rewinddir); the counts and the sum of the numbers in the
// names do not depend on the order the file system lists them in.
static void list_directory(void) {
  SYS(mkdir("d", 0755));
  for (int i = 0; i < 24; i++) {
    char name[32];
    snprintf(name, sizeof name, "d/f%02d", i);
    int fd = SYS(open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    SYS(write(fd, name, strlen(name)));
    SYS(close(fd));
  }
  DIR* dir = opendir("d");
  CHECK(dir != NULL);
  long entries = 0, sum = 0;
  for (int round = 0; round < 50; round++) {
    rewinddir(dir);
    struct dirent* e;
    while ((e = readdir(dir)) != NULL) {
      entries++;
      if (e->d_name[0] == 'f') sum += strtol(e->d_name + 1, NULL, 10);
    }
  }
  closedir(dir);
  printf("directory: %ld entries over 50 listings, name sum %ld\n", entries, sum);
}

int main(void) {
  char buf[8192];

  // Whole-file reads of the inputs, in chunks of several sizes.
  printf("data.bin by 4096: %016llx\n", (unsigned long long)hash_file_by_reads("data.bin", 4096));
  printf("data.bin by 100: %016llx\n", (unsigned long long)hash_file_by_reads("data.bin", 100));
  printf("lines.txt by 33: %016llx\n", (unsigned long long)hash_file_by_reads("lines.txt", 33));

  // pread64 at scattered offsets, lseek + read, fstat and fstatfs.
  int data = SYS(open("data.bin", O_RDONLY | O_CLOEXEC));
  uint64_t h = FNV_INIT;
  for (int i = 0; i < ROUNDS; i++) {
    off_t off = (off_t)((i * 7919) % 65000);
    ssize_t n = SYS(pread(data, buf, 64, off));
    CHECK(n == 64);
    h = fnv1a(buf, 64, h);
    CHECK(SYS(lseek(data, off + 1, SEEK_SET)) == off + 1);
    n = SYS(read(data, buf, 16));
    h = fnv1a(buf, (size_t)n, h);
    struct stat st;
    SYS(fstat(data, &st));
    CHECK(st.st_size == 65536);
  }
  struct statfs sfs;
  for (int i = 0; i < 20; i++) SYS(fstatfs(data, &sfs));
  printf("pread/lseek/read of data.bin: %016llx\n", (unsigned long long)h);
  nd("fstatfs type %lx\n", (unsigned long)sfs.f_type);
  printf("lseek end: %ld\n", (long)SYS(lseek(data, 0, SEEK_END)));

  // A file the program writes, extends and reads back.
  int out = SYS(open("made.dat", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  uint64_t seed = 42;
  for (int i = 0; i < ROUNDS; i++) {
    char line[64];
    int len = snprintf(line, sizeof line, "record %04d %016llx\n", i,
                       (unsigned long long)xorshift(&seed));
    CHECK(SYS(write(out, line, (size_t)len)) == len);
  }
  for (int i = 0; i < ROUNDS; i += 3) {
    char tag[8];
    int len = snprintf(tag, sizeof tag, "R%04d", i);
    CHECK(SYS(pwrite(out, tag, (size_t)len, (off_t)i * 29)) == len);
  }
  struct stat st;
  SYS(fstat(out, &st));
  printf("made.dat: %ld bytes\n", (long)st.st_size);
  h = FNV_INIT;
  for (off_t off = 0; off < st.st_size; off += 50) {
    ssize_t n = SYS(pread(out, buf, 50, off));
    h = fnv1a(buf, (size_t)n, h);
  }
  printf("made.dat by pread: %016llx\n", (unsigned long long)h);
  SYS(close(out));
  printf("made.dat by read: %016llx\n", (unsigned long long)hash_file_by_reads("made.dat", 77));

  list_directory();

  // Devices the recorder allows.
  int zero = SYS(open("/dev/zero", O_RDONLY | O_CLOEXEC));
  int null = SYS(open("/dev/null", O_WRONLY | O_CLOEXEC));
  int urandom = SYS(open("/dev/urandom", O_RDONLY | O_CLOEXEC));
  long nonzero = 0, random_bytes = 0;
  uint64_t rh = FNV_INIT;
  for (int i = 0; i < ROUNDS; i++) {
    memset(buf, 0x5a, 512);
    CHECK(SYS(read(zero, buf, 512)) == 512);
    for (int j = 0; j < 512; j++) nonzero += buf[j] != 0;
    CHECK(SYS(write(null, buf, 300)) == 300);
    ssize_t n = SYS(read(urandom, buf, 32));
    random_bytes += n;
    rh = fnv1a(buf, (size_t)n, rh);
  }
  printf("/dev/zero: %d reads, %ld nonzero bytes; /dev/null: %d writes\n", ROUNDS, nonzero, ROUNDS);
  printf("/dev/urandom: %ld bytes\n", random_bytes);
  nd("/dev/urandom hash %016llx\n", (unsigned long long)rh);

  // Identity, time and path calls.
  pid_t pid = getpid();
  long same_pid = 0, same_tid = 0, monotonic_ok = 0, raw_ok = 0, access_ok = 0, stat_ok = 0;
  struct timespec prev = {0, 0};
  struct utsname u;
  char cwd[4096], exe[4096];
  ssize_t exe_len = 0;
  for (int i = 0; i < ROUNDS; i++) {
    same_pid += getpid() == pid;
    same_tid += (pid_t)syscall(SYS_gettid) == pid;
    struct timespec now, raw;
    SYS(clock_gettime(CLOCK_MONOTONIC, &now));
    SYS(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &raw));  // never the vDSO
    monotonic_ok += now.tv_sec > prev.tv_sec || (now.tv_sec == prev.tv_sec && now.tv_nsec >= prev.tv_nsec);
    raw_ok += raw.tv_sec > now.tv_sec || (raw.tv_sec == now.tv_sec && raw.tv_nsec >= now.tv_nsec);
    prev = raw;
    SYS(uname(&u));
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    exe_len = SYS(readlink("/proc/self/exe", exe, sizeof exe - 1));
    access_ok += access("data.bin", R_OK) == 0 && access("no-such-file", F_OK) == -1;
    struct stat a, b;
    struct statx x;
    SYS(fstatat(AT_FDCWD, "lines.txt", &a, 0));
    SYS(stat("data.bin", &b));
    SYS(statx(AT_FDCWD, "data.bin", 0, STATX_SIZE, &x));
    stat_ok += b.st_size == 65536 && (long long)x.stx_size == 65536 && a.st_size == 400 * 45;
  }
  exe[exe_len] = 0;
  printf("getpid %ld/%d, gettid %ld/%d\n", same_pid, ROUNDS, same_tid, ROUNDS);
  printf("clock_gettime in order %ld/%d, raw after vdso %ld/%d\n", monotonic_ok, ROUNDS, raw_ok, ROUNDS);
  printf("uname sysname %s\n", u.sysname);
  nd("uname release %s, cwd %s\n", u.release, cwd);
  printf("/proc/self/exe basename %s\n", strrchr(exe, '/') + 1);
  printf("access %ld/%d, stat/fstatat/statx %ld/%d\n", access_ok, ROUNDS, stat_ok, ROUNDS);

  uint64_t gh = FNV_INIT;
  long got = 0;
  for (int i = 0; i < ROUNDS; i++) {
    ssize_t n = SYS(getrandom(buf, 24, 0));
    got += n;
    gh = fnv1a(buf, (size_t)n, gh);
  }
  printf("getrandom: %ld bytes\n", got);
  nd("getrandom hash %016llx\n", (unsigned long long)gh);

  // glibc's syscall() function: one more call site for read and write.
  int raw = SYS(open("raw.dat", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  for (int i = 0; i < ROUNDS; i++) {
    char word[16];
    int len = snprintf(word, sizeof word, "w%d,", i * i);
    CHECK(SYS(syscall(SYS_write, raw, word, (size_t)len)) == len);
  }
  CHECK(SYS(syscall(SYS_lseek, raw, 0, SEEK_SET)) == 0);
  h = FNV_INIT;
  long total = 0;
  for (;;) {
    ssize_t n = SYS(syscall(SYS_read, raw, buf, 37));
    if (n == 0) break;
    total += n;
    h = fnv1a(buf, (size_t)n, h);
  }
  long pread_total = 0;
  for (int i = 0; i < ROUNDS; i++) pread_total += SYS(syscall(SYS_pread64, data, buf, 10, (off_t)i * 3));
  printf("syscall(): wrote and read back %ld bytes, %016llx; pread64 %ld bytes\n", total,
         (unsigned long long)h, pread_total);
  SYS(close(raw));
  SYS(close(data));
  SYS(close(zero));
  SYS(close(null));
  SYS(close(urandom));
  return 0;
}
