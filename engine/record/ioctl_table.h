// How an ioctl request writes the program's memory: from the request's own
// _IOC encoding where it has one, from a table for the requests that predate
// the encoding or do not follow it. Pure: no tracee, so it is unit-tested.
#pragma once

#include <cstdint>
#include <string>

namespace backstep::ioctl {

enum class Output {
  None,         // writes no memory (results, if any, come back in the return value)
  Fixed,        // writes `size` bytes at the argument
  Ifconf,       // SIOCGIFCONF: struct ifconf, then ifc_len bytes at ifc_buf
  Fiemap,       // FS_IOC_FIEMAP: struct fiemap, then fm_mapped_extents extents
  DedupeRange,  // FIDEDUPERANGE: the header, then dest_count info records
  Unknown,      // not encoded and not in the table: cannot tell what it wrote
  Refused,      // writes through pointers inside its argument (`why` says so)
};

struct Rule {
  Output kind = Output::None;
  uint32_t size = 0;        // for Fixed
  const char* why = "";     // for Refused
};

// What `request` writes when it succeeds. A failed call writes nothing the
// recording needs: its errno comes back in the registers.
Rule rule_for(uint32_t request);

// "0x80045200 (_IOR('R', 0x0, 4))": the request in hex and, when it is
// encoded, its decoding, for refusal messages.
std::string describe(uint32_t request);

}  // namespace backstep::ioctl
