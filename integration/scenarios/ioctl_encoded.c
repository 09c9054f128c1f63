// scenario: ioctl requests recorded from their _IOC encoding or from the
// table of old-style ones: requests that fail (the errno is all they leave),
// _IOR requests that write an int or a struct (RNDGETENTCNT on /dev/urandom,
// FS_IOC_GETVERSION/GETFLAGS on a file), FIGETBSZ, FIOQSIZE, FIBMAP,
// FS_IOC_FIEMAP (a header plus the extents it found), block requests on a
// file, and the socket ones: SIOCGIFCONF, SIOCGIFINDEX/NAME/FLAGS/MTU/ADDR,
// SIOCGSTAMP, SIOCINQ/SIOCOUTQ. Every output buffer starts filled with a
// pattern, so memory the recording missed prints differently in replay.
#include "scenario.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/random.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>

#define FILL 0xa5

// Runs ioctl(fd, req, arg) and prints "NAME: ok = R" or "NAME: ERRNAME".
static long try_ioctl(const char* name, int fd, unsigned long req, void* arg) {
  errno = 0;
  long r = ioctl(fd, req, arg);
  if (r < 0) {
    printf("%s (0x%lx): %s\n", name, req, strerrorname_np(errno));
  } else {
    printf("%s (0x%lx): ok = %ld\n", name, req, r);
  }
  return r;
}

static void file_requests(void) {
  int fd = SYS(open("data.bin", O_CREAT | O_RDWR | O_TRUNC, 0644));
  char block[8192];
  memset(block, 'x', sizeof block);
  SYS(write(fd, block, sizeof block));
  SYS(fsync(fd));

  unsigned char buf[64];
  memset(buf, FILL, sizeof buf);
  try_ioctl("MTIOCGET on a file", fd, 0x80306d02, buf);
  try_ioctl("VT_OPENQRY on a file", fd, 0x5600, buf);
  try_ioctl("TIOCMGET on a file", fd, 0x5415, buf);
  try_ioctl("BLKGETSIZE64 on a file", fd, BLKGETSIZE64, buf);
  try_ioctl("BLKSSZGET on a file", fd, BLKSSZGET, buf);
  printf("buffer untouched by failures: %s\n", buf[0] == FILL && buf[63] == FILL ? "yes" : "no");

  long version = (long)0xa5a5a5a5a5a5a5a5;
  if (try_ioctl("FS_IOC_GETVERSION", fd, 0x80087601, &version) == 0) nd("generation %ld\n", version);
  int flags = (int)0xa5a5a5a5;
  if (try_ioctl("FS_IOC_GETFLAGS", fd, FS_IOC_GETFLAGS, &flags) == 0) printf("flags 0x%x\n", flags);
  int bsz = -1;
  if (try_ioctl("FIGETBSZ", fd, FIGETBSZ, &bsz) == 0) printf("block size %d\n", bsz);
  loff_t qsize = -1;
  if (try_ioctl("FIOQSIZE", fd, FIOQSIZE, &qsize) == 0) printf("size %lld\n", (long long)qsize);
  int blk = 0;
  if (try_ioctl("FIBMAP", fd, FIBMAP, &blk) == 0) nd("block 0 is at %d\n", blk);

  union {
    struct fiemap map;
    unsigned char raw[sizeof(struct fiemap) + 4 * sizeof(struct fiemap_extent)];
  } fm;
  memset(&fm, FILL, sizeof fm);
  fm.map.fm_start = 0;
  fm.map.fm_length = ~0ULL;
  fm.map.fm_flags = FIEMAP_FLAG_SYNC;
  fm.map.fm_extent_count = 4;
  fm.map.fm_reserved = 0;
  if (try_ioctl("FS_IOC_FIEMAP", fd, FS_IOC_FIEMAP, &fm) == 0) {
    printf("mapped extents %u\n", fm.map.fm_mapped_extents);
    uint64_t bytes = 0;
    for (unsigned i = 0; i < fm.map.fm_mapped_extents && i < 4; i++) {
      bytes += fm.map.fm_extents[i].fe_length;
      nd("extent %u at %llu flags 0x%x\n", i, (unsigned long long)fm.map.fm_extents[i].fe_physical,
         fm.map.fm_extents[i].fe_flags);
    }
    printf("extent bytes %llu\n", (unsigned long long)bytes);
    nd_hex("fiemap", &fm, sizeof fm);
  }
  int other = SYS(open("copy.bin", O_CREAT | O_RDWR | O_TRUNC, 0644));
  try_ioctl("FICLONE", other, FICLONE, (void*)(long)fd);
  SYS(close(other));
  SYS(close(fd));

  int urandom = SYS(open("/dev/urandom", O_RDONLY));
  try_ioctl("RNDGETENTCNT to a bad pointer", urandom, 0x80045200, (void*)16);
  int entropy = (int)0xa5a5a5a5;
  if (try_ioctl("RNDGETENTCNT", urandom, 0x80045200, &entropy) == 0) {
    printf("entropy count written: %s\n", entropy != (int)0xa5a5a5a5 ? "yes" : "no");
    nd("entropy count %d\n", entropy);
  }
  SYS(close(urandom));
}

static void socket_requests(void) {
  int s = SYS(socket(AF_INET, SOCK_DGRAM, 0));
  struct ifreq ifr;
  memset(&ifr, FILL, sizeof ifr);
  strcpy(ifr.ifr_name, "lo");
  try_ioctl("SIOCGIFINDEX lo", s, SIOCGIFINDEX, &ifr);
  int index = ifr.ifr_ifindex;
  printf("lo index %d\n", index);
  memset(&ifr, FILL, sizeof ifr);
  ifr.ifr_ifindex = index;
  try_ioctl("SIOCGIFNAME", s, SIOCGIFNAME, &ifr);
  printf("name of index %d: %s\n", index, ifr.ifr_name);
  try_ioctl("SIOCGIFFLAGS", s, SIOCGIFFLAGS, &ifr);
  printf("lo up: %d loopback: %d\n", !!(ifr.ifr_flags & IFF_UP), !!(ifr.ifr_flags & IFF_LOOPBACK));
  try_ioctl("SIOCGIFMTU", s, SIOCGIFMTU, &ifr);
  printf("lo mtu %d\n", ifr.ifr_mtu);
  try_ioctl("SIOCGIFADDR", s, SIOCGIFADDR, &ifr);
  printf("lo address %s\n", inet_ntoa(((struct sockaddr_in*)&ifr.ifr_addr)->sin_addr));
  strcpy(ifr.ifr_name, "no-such-if0");
  try_ioctl("SIOCGIFINDEX missing", s, SIOCGIFINDEX, &ifr);

  struct ifreq reqs[16];
  memset(reqs, FILL, sizeof reqs);
  struct ifconf conf = {.ifc_len = sizeof reqs, .ifc_req = reqs};
  try_ioctl("SIOCGIFCONF", s, SIOCGIFCONF, &conf);
  int found_lo = 0;
  for (int i = 0; i < conf.ifc_len / (int)sizeof(struct ifreq); i++) {
    found_lo |= strcmp(reqs[i].ifr_name, "lo") == 0;
  }
  printf("SIOCGIFCONF lists lo: %s\n", found_lo ? "yes" : "no");
  nd("SIOCGIFCONF %d bytes, checksum %016llx\n", conf.ifc_len,
     (unsigned long long)fnv1a(reqs, sizeof reqs, FNV_INIT));

  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  SYS(bind(s, (struct sockaddr*)&addr, sizeof addr));
  socklen_t len = sizeof addr;
  SYS(getsockname(s, (struct sockaddr*)&addr, &len));
  struct timeval stamp;
  memset(&stamp, FILL, sizeof stamp);
  try_ioctl("SIOCGSTAMP before a packet", s, SIOCGSTAMP, &stamp);
  SYS(sendto(s, "ping!", 5, 0, (struct sockaddr*)&addr, sizeof addr));
  int queued = -1;
  try_ioctl("SIOCINQ", s, SIOCINQ, &queued);
  printf("queued %d\n", queued);
  int outq = -1;
  try_ioctl("SIOCOUTQ", s, SIOCOUTQ, &outq);
  char buf[16];
  SYS(recv(s, buf, sizeof buf, 0));
  if (try_ioctl("SIOCGSTAMP", s, SIOCGSTAMP, &stamp) == 0) {
    nd("stamp %ld.%06ld\n", (long)stamp.tv_sec, (long)stamp.tv_usec);
  }
  SYS(close(s));
}

int main(void) {
  int p[2];
  SYS(pipe(p));
  int value = 7;
  try_ioctl("PERF_EVENT_IOC_ENABLE on a pipe", p[0], 0x2400, NULL);
  try_ioctl("TIOCMGET on a pipe", p[0], 0x5415, &value);
  try_ioctl("VT_OPENQRY on a pipe", p[0], 0x5600, &value);
  try_ioctl("unknown _IOR on a pipe", p[0], _IOR('z', 0x42, int), &value);
  try_ioctl("unknown old-style on a pipe", p[0], 0x54ff, &value);
  printf("value after failures: %d\n", value);
  file_requests();
  socket_requests();
  return 0;
}
