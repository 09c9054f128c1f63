// scenario: process identity: getpid/getppid/gettid/getuid/geteuid/getgid/
// getegid/getresuid/getresgid/getgroups/getpgrp/getpgid/getsid, uname,
// sysinfo, gethostname, prctl(PR_SET_NAME/PR_GET_NAME), umask, sched_yield.
#include "scenario.h"

#include <grp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>

int main(void) {
  pid_t pid = getpid(), ppid = getppid(), tid = gettid();
  nd("pid %d ppid %d tid %d\n", pid, ppid, tid);
  printf("single thread (tid == pid): %s\n", tid == pid ? "yes" : "no");
  printf("raw getpid agrees: %s\n", syscall(SYS_getpid) == pid ? "yes" : "no");
  uid_t r, e, s;
  gid_t gr, ge, gs;
  SYS(getresuid(&r, &e, &s));
  SYS(getresgid(&gr, &ge, &gs));
  nd("uid %d euid %d gid %d egid %d\n", getuid(), geteuid(), getgid(), getegid());
  printf("getresuid agrees: %s, getresgid agrees: %s\n",
         r == getuid() && e == geteuid() ? "yes" : "no",
         gr == getgid() && ge == getegid() ? "yes" : "no");
  gid_t groups[256];
  int ng = SYS(getgroups(256, groups));
  nd("groups %d first %d\n", ng, ng > 0 ? (int)groups[0] : -1);
  nd("pgrp %d pgid %d sid %d\n", getpgrp(), getpgid(0), getsid(0));
  printf("pgid(0) == pgrp: %s\n", getpgid(0) == getpgrp() ? "yes" : "no");

  struct utsname u;
  SYS(uname(&u));
  printf("uname: %s %s\n", u.sysname, u.machine);
  nd("uname: node %s release %s version %s\n", u.nodename, u.release, u.version);
  char host[256];
  SYS(gethostname(host, sizeof host));
  printf("hostname matches nodename: %s\n", strcmp(host, u.nodename) == 0 ? "yes" : "no");

  struct sysinfo si;
  SYS(sysinfo(&si));
  nd("sysinfo: uptime %ld loads %lu %lu %lu totalram %lu freeram %lu procs %u\n", si.uptime,
     si.loads[0], si.loads[1], si.loads[2], si.totalram, si.freeram, si.procs);
  printf("sysinfo sane: %s\n", si.totalram > 0 && si.procs > 0 ? "yes" : "no");

  SYS(prctl(PR_SET_NAME, "scn-identity"));
  char name[17] = {0};
  SYS(prctl(PR_GET_NAME, name));
  printf("PR_GET_NAME: %s\n", name);
  printf("PR_GET_DUMPABLE: %ld\n", SYS(prctl(PR_GET_DUMPABLE)));
  mode_t old = umask(077);
  printf("umask: %03o then %03o\n", (unsigned)old, (unsigned)umask(old));
  SYS(sched_yield());
  nd("cpu %d\n", sched_getcpu());
  return 0;
}
