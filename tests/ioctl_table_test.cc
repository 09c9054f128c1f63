// The ioctl recording rule (engine/record/ioctl_table.cc): encoded requests
// by their direction and size, old-style ones by the table, and the unknowns.
#define BOOST_TEST_MODULE ioctl_table
#include <boost/test/unit_test.hpp>

#include <asm/termbits.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/if_tun.h>
#include <linux/nsfs.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>

#include <sys/syscall.h>

#include <set>

#include "engine/record/ioctl_table.h"
#include "preload/preload_interface.h"

// support/buffered_calls.c: the preload library's generated table.
extern "C" const bs_buffered_call* bs_test_buffered_calls(unsigned* count);

using backstep::ioctl::describe;
using backstep::ioctl::Output;
using backstep::ioctl::rule_for;

namespace {

void check_fixed(uint32_t request, uint32_t size) {
  auto rule = rule_for(request);
  BOOST_TEST((rule.kind == Output::Fixed), std::hex << "0x" << request << " should write");
  BOOST_TEST(rule.size == size, std::hex << "0x" << request);
}

void check_kind(uint32_t request, Output kind) {
  BOOST_TEST((rule_for(request).kind == kind), std::hex << "0x" << request);
}

}  // namespace

BOOST_AUTO_TEST_CASE(read_direction_records_the_encoded_size) {
  check_fixed(0x80045200, 4);   // RNDGETENTCNT, _IOR('R', 0, int)
  check_fixed(0x80306d02, 48);  // MTIOCGET, _IOR('m', 2, struct mtget)
  check_fixed(0x80087601, 8);   // FS_IOC_GETVERSION, _IOR('v', 1, long)
  check_fixed(TIOCGPTN, 4);
  check_fixed(TCGETS2, sizeof(struct termios2));
  check_fixed(_IOWR('q', 7, char[300]), 300);  // an unknown driver, read+write
  check_fixed(BLKGETSIZE64, 8);
}

BOOST_AUTO_TEST_CASE(write_only_and_modern_none_record_nothing) {
  check_kind(0x2400, Output::None);              // PERF_EVENT_IOC_ENABLE, _IO('$', 0)
  check_kind(_IOW('q', 1, int), Output::None);
  check_kind(FICLONE, Output::None);
  check_kind(_IO(0xae, 0x80), Output::None);     // KVM_RUN
}

BOOST_AUTO_TEST_CASE(old_style_requests_come_from_the_table) {
  check_fixed(TCGETS, sizeof(struct termios));
  check_fixed(TIOCGWINSZ, 8);
  check_fixed(0x5415, 4);  // TIOCMGET
  check_fixed(0x5600, 4);  // VT_OPENQRY
  check_fixed(FIONREAD, 4);
  check_fixed(SIOCGIFINDEX, 40);
  check_fixed(SIOCGIFNAME, 40);
  check_fixed(SIOCGSTAMP, 16);
  check_fixed(FIBMAP, 4);
  check_fixed(FIGETBSZ, 4);
  check_fixed(BLKSSZGET, 4);
  check_kind(TCSETS, Output::None);
  check_kind(TIOCSWINSZ, Output::None);
  check_kind(FIONBIO, Output::None);
  check_kind(TIOCSCTTY, Output::None);
  check_kind(SIOCGIFCONF, Output::Ifconf);
  check_kind(FS_IOC_FIEMAP, Output::Fiemap);
  check_kind(FIDEDUPERANGE, Output::DedupeRange);
  check_fixed(TUNSETIFF, 40);  // _IOW, but writes the interface name back
  check_fixed(TUNGETIFF, 40);  // _IOR of an int, but writes a struct ifreq
  check_fixed(NS_GET_OWNER_UID, 4);  // _IO, but writes a uid_t
  check_kind(NS_GET_USERNS, Output::None);  // returns a descriptor
}

BOOST_AUTO_TEST_CASE(unknown_old_style_requests_are_unknown) {
  check_kind(0x54ff, Output::Unknown);  // 'T', not a terminal request
  check_kind(0x541c, Output::Unknown);  // TIOCLINUX: sub-commands write differently
  check_kind(0x8940, Output::Unknown);  // SIOCGIFBR
  check_kind(0x1234, Output::Unknown);  // block
  check_kind(0x0003, Output::Unknown);  // type 0
  // _IOC_NONE with a size is not a proper _IO().
  check_kind(_IOC(_IOC_NONE, 'q', 1, 16), Output::Unknown);
}

BOOST_AUTO_TEST_CASE(nested_pointer_requests_are_refused) {
  check_kind(SIOCETHTOOL, Output::Refused);
  check_kind(_IOWR('d', 0x00, char[64]), Output::Refused);  // DRM_IOCTL_VERSION-like
  BOOST_TEST(std::string(rule_for(SIOCETHTOOL).why).find("pointers") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(descriptions_name_the_request) {
  BOOST_TEST(describe(0x80045200) == "0x80045200 (_IOR('R', 0x0, 4 bytes))");
  BOOST_TEST(describe(0x2400) == "0x2400 (_IO('$', 0x0, 0 bytes))");
  BOOST_TEST(describe(0x54ff) == "0x54ff");
  BOOST_TEST(describe(0xc0109407) == "0xc0109407 (_IOWR(0x94, 0x7, 16 bytes))");
}

// The requests the preload library buffers (the spec's buffer=req1:...) run
// no handler: each must write, at the argument the table names, exactly what
// the handler records for it (a fixed size), on any descriptor.
BOOST_AUTO_TEST_CASE(buffered_requests_write_what_the_table_records) {
  unsigned count = 0;
  const bs_buffered_call* calls = bs_test_buffered_calls(&count);
  std::set<uint32_t> buffered;
  for (unsigned i = 0; i < count; ++i) {
    const bs_buffered_call& call = calls[i];
    if (call.nr != SYS_ioctl) continue;
    BOOST_TEST_REQUIRE((call.flags & BS_CALL_OP_EXACT) != 0u);
    BOOST_TEST(call.op_arg == 1);
    BOOST_TEST(call.op_mask == 0xffffffffu);
    BOOST_TEST(call.fd_arg == BS_GATE_NONE);
    BOOST_TEST((call.flags & BS_CALL_MAY_BLOCK) == 0u);
    uint32_t request = static_cast<uint32_t>(call.op_values);
    buffered.insert(request);
    auto rule = rule_for(request);
    if (rule.kind == Output::None) {
      BOOST_TEST(call.out_count == 0, std::hex << "0x" << request);
      continue;
    }
    BOOST_TEST_REQUIRE((rule.kind == Output::Fixed), std::hex << "0x" << request << " writes more than a fixed size");
    BOOST_TEST_REQUIRE(call.out_count == 1, std::hex << "0x" << request);
    BOOST_TEST(call.outs[0].arg == 2);
    BOOST_TEST(call.outs[0].kind == BS_SIZE_FIXED);
    BOOST_TEST(call.outs[0].size == rule.size, std::hex << "0x" << request);
  }
  // The terminal queries libc and Python make on every file they open.
  for (uint32_t request : {unsigned(TCGETS), unsigned(TIOCGWINSZ), unsigned(TIOCGPGRP), unsigned(FIONREAD)}) {
    BOOST_TEST(buffered.count(request) == 1u, std::hex << "0x" << request);
  }
}
