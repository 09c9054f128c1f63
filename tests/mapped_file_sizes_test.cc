// Which files the recorder watches for size changes
// (engine/record/mapped_file_sizes.h): while a mapping that replay puts over
// an object following the file's size exists, however it is cut or moved.
#define BOOST_TEST_MODULE mapped_file_sizes
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <set>
#include <string>

#include "engine/record/mapped_file_sizes.h"
#include "tests/support/temp_dir.h"

namespace {

using backstep::MappedFileSizes;
using backstep::testing::TempDir;
namespace trace = backstep::trace;

constexpr uint64_t kPage = 4096, kA = 0x100000, kB = 0x200000;

struct File {
  TempDir dir{"mapped_file_sizes_test"};
  std::string path = dir.sub("f");
  File() { BOOST_REQUIRE(truncate_to(100)); }
  bool truncate_to(off_t size) {
    int fd = open(path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    bool ok = fd >= 0 && ftruncate(fd, size) == 0;
    close(fd);
    return ok;
  }
};

std::set<uint64_t> objects(std::initializer_list<uint64_t> ids) { return ids; }

}  // namespace

BOOST_AUTO_TEST_CASE(a_size_change_is_noted_once) {
  File f;
  MappedFileSizes sizes;
  sizes.watch(f.path, 7, 100, kA, kA + kPage);
  trace::Event e;
  sizes.note_changes(e);
  BOOST_TEST(e.mappings.empty());
  BOOST_REQUIRE(f.truncate_to(5000));
  sizes.note_changes(e);
  BOOST_REQUIRE(e.mappings.size() == 1u);
  BOOST_TEST(e.mappings[0].shared_object == 7u);
  BOOST_TEST(e.mappings[0].file_size == 5000u);
  sizes.note_changes(e);
  BOOST_TEST(e.mappings.size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_file_is_watched_until_its_last_range_is_unmapped) {
  File f;
  MappedFileSizes sizes;
  sizes.watch(f.path, 7, 100, kA, kA + 3 * kPage);
  sizes.watch(f.path, 7, 100, kB, kB + kPage);
  sizes.unmapped(kB, kPage);
  BOOST_TEST(sizes.watched() == objects({7}));
  // Cut in the middle: both sides are still mapped over the object.
  sizes.unmapped(kA + kPage, kPage);
  BOOST_TEST(sizes.watched() == objects({7}));
  sizes.unmapped(kA, kPage);
  BOOST_TEST(sizes.watched() == objects({7}));
  sizes.unmapped(kA + 2 * kPage, 1);  // a length is rounded up to pages
  BOOST_TEST(sizes.watched().empty());
  // A file no longer watched gets no notes.
  BOOST_REQUIRE(f.truncate_to(9000));
  trace::Event e;
  sizes.note_changes(e);
  BOOST_TEST(e.mappings.empty());
}

BOOST_AUTO_TEST_CASE(a_mapping_made_over_a_watched_range_ends_it) {
  File f;
  MappedFileSizes sizes;
  sizes.watch(f.path, 7, 100, kA, kA + 2 * kPage);
  sizes.watch(f.path, 8, 100, kA, kA + 2 * kPage);  // MAP_FIXED over it
  BOOST_TEST(sizes.watched() == objects({8}));
}

BOOST_AUTO_TEST_CASE(a_moved_mapping_is_watched_at_its_new_place) {
  File f;
  MappedFileSizes sizes;
  sizes.watch(f.path, 7, 100, kA, kA + kPage);
  sizes.remapped(kA, kPage, false, kB, 2 * kPage);
  BOOST_TEST(sizes.watched() == objects({7}));
  sizes.unmapped(kA, kPage);
  BOOST_TEST(sizes.watched() == objects({7}));
  sizes.unmapped(kB + kPage, kPage);
  BOOST_TEST(sizes.watched() == objects({7}));
  sizes.unmapped(kB, kPage);
  BOOST_TEST(sizes.watched().empty());
}

BOOST_AUTO_TEST_CASE(a_mapping_grown_in_place_or_copied_is_still_watched) {
  File f;
  MappedFileSizes sizes;
  sizes.watch(f.path, 7, 100, kA, kA + kPage);
  sizes.remapped(kA, kPage, false, kA, 4 * kPage);  // grown in place
  sizes.unmapped(kA, kPage);
  BOOST_TEST(sizes.watched() == objects({7}));
  sizes.remapped(kA + kPage, 0, true, kB, kPage);  // old_len 0: a second mapping
  sizes.unmapped(kA, 4 * kPage);
  BOOST_TEST(sizes.watched() == objects({7}));
  sizes.unmapped(kB, kPage);
  BOOST_TEST(sizes.watched().empty());
}

BOOST_AUTO_TEST_CASE(moving_an_unwatched_mapping_over_a_watched_one_ends_it) {
  File f;
  MappedFileSizes sizes;
  sizes.watch(f.path, 7, 100, kB, kB + kPage);
  sizes.remapped(kA, kPage, false, kB, kPage);
  BOOST_TEST(sizes.watched().empty());
}

// A private mapping is watched past the file's end only (mm_syscalls.cc
// passes that part): moved, its part keeps its offset; grown, it grows;
// shrunk away, it is no longer watched.
BOOST_AUTO_TEST_CASE(a_part_of_a_mapping_moves_at_its_offset) {
  File f;
  MappedFileSizes sizes;
  sizes.watch(f.path, 7, 100, kA + 2 * kPage, kA + 4 * kPage);
  sizes.remapped(kA, 4 * kPage, false, kB, 6 * kPage);
  sizes.unmapped(kB, 2 * kPage);  // the part that was not watched
  sizes.unmapped(kB + 5 * kPage, kPage);
  BOOST_TEST(sizes.watched() == objects({7}));
  sizes.unmapped(kB + 2 * kPage, 3 * kPage);
  BOOST_TEST(sizes.watched().empty());

  sizes.watch(f.path, 7, 100, kA + 2 * kPage, kA + 4 * kPage);
  sizes.remapped(kA, 4 * kPage, false, kA, 3 * kPage);  // shrunk in place
  BOOST_TEST(sizes.watched() == objects({7}));
  sizes.remapped(kA, 3 * kPage, false, kA, 2 * kPage);  // the watched part is gone
  BOOST_TEST(sizes.watched().empty());
}
