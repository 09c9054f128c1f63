#include "engine/trace/written_data.h"

#include <xxhash.h>

#include <algorithm>

namespace backstep::trace {
namespace {

std::size_t block_count(uint64_t size) { return static_cast<std::size_t>((size + kWrittenBlock - 1) / kWrittenBlock); }

uint64_t block_hash(std::span<const uint8_t> bytes, std::size_t block) {
  std::size_t start = block * kWrittenBlock;
  std::size_t len = std::min(kWrittenBlock, bytes.size() - start);
  return XXH3_64bits(bytes.data() + start, len);
}

bool echoed(std::span<const uint8_t> bytes, const std::vector<StdioEcho>& echoes) {
  return echoes.size() == 1 && std::equal(bytes.begin(), bytes.end(), echoes[0].data.begin(), echoes[0].data.end());
}

std::string first_difference(std::span<const uint8_t> recorded, std::span<const uint8_t> live) {
  auto [r, l] = std::mismatch(recorded.begin(), recorded.end(), live.begin(), live.end());
  std::size_t at = static_cast<std::size_t>(r - recorded.begin());
  return "written data differs (first difference at byte " + std::to_string(at) + " of " +
         std::to_string(recorded.size()) + ")";
}

}  // namespace

WrittenData summarize_written(std::span<const uint8_t> bytes, const std::vector<StdioEcho>& echoes) {
  WrittenData d;
  d.size = bytes.size();
  if (echoed(bytes, echoes)) {
    d.form = WrittenData::Form::Echoed;
  } else if (bytes.size() <= kWrittenBytesKept) {
    d.form = WrittenData::Form::Bytes;
    d.bytes.assign(bytes.begin(), bytes.end());
  } else {
    d.form = WrittenData::Form::BlockHashes;
    d.block_hashes.resize(block_count(d.size));
    for (std::size_t i = 0; i < d.block_hashes.size(); ++i) d.block_hashes[i] = block_hash(bytes, i);
  }
  return d;
}

std::string compare_written(const WrittenData& recorded, const std::vector<StdioEcho>& echoes,
                            std::span<const uint8_t> live) {
  switch (recorded.form) {
    case WrittenData::Form::Bytes: {
      if (std::equal(live.begin(), live.end(), recorded.bytes.begin(), recorded.bytes.end())) return "";
      return first_difference(recorded.bytes, live);
    }
    case WrittenData::Form::Echoed: {
      if (echoed(live, echoes)) return "";
      if (echoes.size() != 1) return "written data differs (the recorded output is missing)";
      return first_difference(echoes[0].data, live);
    }
    case WrittenData::Form::BlockHashes: {
      for (std::size_t i = 0; i < recorded.block_hashes.size(); ++i) {
        std::size_t start = i * kWrittenBlock;
        std::size_t end = std::min<uint64_t>(start + kWrittenBlock, recorded.size);
        if (live.size() < end || block_hash(live, i) != recorded.block_hashes[i]) {
          return "written data differs (first difference in bytes " + std::to_string(start) + ".." +
                 std::to_string(end - 1) + " of " + std::to_string(recorded.size) + ")";
        }
      }
      if (live.size() != recorded.size) {
        return "written data differs (" + std::to_string(live.size()) + " bytes, recorded " +
               std::to_string(recorded.size) + ")";
      }
      return "";
    }
  }
  return "written data has an unknown form";
}

std::string written_data_problem(const WrittenData& d, const std::vector<StdioEcho>& echoes) {
  switch (d.form) {
    case WrittenData::Form::Bytes:
      if (d.bytes.size() != d.size) return "written data holds " + std::to_string(d.bytes.size()) + " bytes, says " + std::to_string(d.size);
      return "";
    case WrittenData::Form::BlockHashes:
      if (d.block_hashes.size() != block_count(d.size))
        return "written data holds " + std::to_string(d.block_hashes.size()) + " block hashes for " +
               std::to_string(d.size) + " bytes";
      return "";
    case WrittenData::Form::Echoed:
      if (echoes.size() != 1 || echoes[0].data.size() != d.size)
        return "written data refers to an echo of " + std::to_string(d.size) + " bytes that the event lacks";
      return "";
  }
  return "written data has an unknown form";
}

}  // namespace backstep::trace
