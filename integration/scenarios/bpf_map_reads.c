// scenario: reading bpf maps: a hash map filled and read back with
// BPF_MAP_LOOKUP_ELEM, walked with BPF_MAP_GET_NEXT_KEY, emptied with
// BPF_MAP_LOOKUP_AND_DELETE_ELEM; a per-CPU array (one value per possible
// CPU); BPF_OBJ_GET_INFO_BY_FD of a map. The kernel writes through the
// pointers in attr, sized by the map. Without privileges, the errors.
#include "scenario.h"

#include <linux/bpf.h>
#include <sys/syscall.h>

static long bpf(int cmd, union bpf_attr* attr) { return syscall(SYS_bpf, cmd, attr, sizeof *attr); }

static int create(unsigned type, unsigned key_size, unsigned value_size, unsigned entries) {
  union bpf_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.map_type = type;
  attr.key_size = key_size;
  attr.value_size = value_size;
  attr.max_entries = entries;
  return (int)bpf(BPF_MAP_CREATE, &attr);
}

static long elem(int cmd, int fd, const void* key, void* value, uint64_t flags) {
  union bpf_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.map_fd = (uint32_t)fd;
  attr.key = (uintptr_t)key;
  attr.value = (uintptr_t)value;
  attr.flags = flags;
  return bpf(cmd, &attr);
}

static long next_key(int fd, const void* key, void* next) {
  union bpf_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.map_fd = (uint32_t)fd;
  attr.key = (uintptr_t)key;
  attr.next_key = (uintptr_t)next;
  return bpf(BPF_MAP_GET_NEXT_KEY, &attr);
}

int main(void) {
  int hash = create(BPF_MAP_TYPE_HASH, sizeof(uint32_t), sizeof(uint64_t), 16);
  if (hash < 0) {
    printf("BPF_MAP_CREATE: %s\n", errname(errno));
    return 0;
  }
  for (uint32_t k = 1; k <= 5; k++) {
    uint64_t v = (uint64_t)k * k * 1000003u;
    SYS(elem(BPF_MAP_UPDATE_ELEM, hash, &k, &v, BPF_ANY));
  }
  uint32_t key = 3;
  uint64_t value = 0;
  SYS(elem(BPF_MAP_LOOKUP_ELEM, hash, &key, &value, 0));
  printf("lookup 3: %llu\n", (unsigned long long)value);
  key = 42;
  errno = 0;
  long r = elem(BPF_MAP_LOOKUP_ELEM, hash, &key, &value, 0);
  printf("lookup 42: %ld %s\n", r, errname(errno));
  uint64_t sum = 0;
  int walked = 0;
  uint32_t at = 0, next = 0;
  for (long more = next_key(hash, NULL, &next); more == 0; more = next_key(hash, &at, &next)) {
    SYS(elem(BPF_MAP_LOOKUP_ELEM, hash, &next, &value, 0));
    sum += value;
    walked++;
    at = next;
  }
  printf("walked %d keys, sum %llu\n", walked, (unsigned long long)sum);
  key = 2;
  errno = 0;
  r = elem(BPF_MAP_LOOKUP_AND_DELETE_ELEM, hash, &key, &value, 0);
  printf("lookup and delete 2: %ld %s, value %llu\n", r, r ? errname(errno) : "", r ? 0ULL : (unsigned long long)value);
  struct bpf_map_info info;
  memset(&info, 0, sizeof info);
  union bpf_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.info.bpf_fd = (uint32_t)hash;
  attr.info.info_len = sizeof info;
  attr.info.info = (uintptr_t)&info;
  SYS(bpf(BPF_OBJ_GET_INFO_BY_FD, &attr));
  printf("info: type %u key %u value %u entries %u\n", info.type, info.key_size, info.value_size, info.max_entries);
  nd("map id %u, info_len %u\n", info.id, attr.info.info_len);

  int percpu = SYS(create(BPF_MAP_TYPE_PERCPU_ARRAY, sizeof(uint32_t), sizeof(uint32_t), 2));
  uint64_t per_cpu[1024];  // room for 1024 possible CPUs, 8 bytes each
  for (int i = 0; i < 1024; i++) per_cpu[i] = (uint64_t)i + 7;
  key = 1;
  SYS(elem(BPF_MAP_UPDATE_ELEM, percpu, &key, per_cpu, BPF_ANY));
  memset(per_cpu, 0xff, sizeof per_cpu);
  SYS(elem(BPF_MAP_LOOKUP_ELEM, percpu, &key, per_cpu, 0));
  printf("per-CPU values: %llu %llu\n", (unsigned long long)(per_cpu[0] & 0xffffffff),
         (unsigned long long)(per_cpu[1] & 0xffffffff));
  nd("checksum %016llx\n", (unsigned long long)fnv1a(per_cpu, sizeof per_cpu, FNV_INIT));
  return 0;
}
