// The trace's `files/`: copies that never share an inode with a host file,
// never get wider permissions than their source, are shared between traces of
// one root only through backstep's own store, and are checked before replay
// maps them.
#define BOOST_TEST_MODULE file_store
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>

#include "engine/trace/reader.h"
#include "engine/trace/trace_error.h"
#include "engine/trace/writer.h"
#include "tests/support/temp_dir.h"

using namespace backstep::trace;
namespace fs = std::filesystem;

namespace {

struct TempDir : backstep::testing::TempDir {
  TempDir() : backstep::testing::TempDir("file_store_test") {}
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void write_file(const std::string& path, const std::string& content, mode_t mode) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
  BOOST_REQUIRE(::chmod(path.c_str(), mode) == 0);
}

struct stat stat_of(const std::string& path) {
  struct stat st {};
  BOOST_REQUIRE(::stat(path.c_str(), &st) == 0);
  return st;
}

bool same_inode(const std::string& a, const std::string& b) {
  struct stat x = stat_of(a), y = stat_of(b);
  return x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

void expect_error(const std::function<void()>& f, const std::string& part) {
  try {
    f();
  } catch (const TraceError& e) {
    BOOST_CHECK_MESSAGE(std::string(e.what()).find(part) != std::string::npos,
                        "message \"" << e.what() << "\" lacks \"" << part << "\"");
    return;
  }
  BOOST_ERROR("no TraceError (expected one mentioning \"" << part << "\")");
}

Mapping file_mapping(const StoredFile& f) {
  Mapping m;
  m.start = 0x10000;
  m.end = 0x20000;
  m.kind = MappingKind::File;
  m.file = f.path;
  m.file_size = f.size;
  m.file_hash = f.hash;
  return m;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_copy_never_shares_the_host_inode) {
  TempDir tmp;
  // An executable under /usr or /lib was once hard-linked; now nothing is.
  for (std::string host : {"/proc/self/exe", "/bin/sh"}) {
    std::string dir = tmp.sub("t" + std::to_string(host.size()));
    TraceWriter w(dir, Header{});
    StoredFile f = w.add_file(host, host);
    std::string copy = dir + "/" + f.path;
    BOOST_TEST(!same_inode(host, copy));
    BOOST_TEST(stat_of(copy).st_nlink == 1u);
    BOOST_TEST(slurp(copy) == slurp(host));
    BOOST_TEST(f.size == static_cast<uint64_t>(stat_of(host).st_size));
  }
}

BOOST_AUTO_TEST_CASE(a_copy_is_never_wider_or_writable) {
  TempDir tmp;
  TraceWriter w(tmp.sub("t"), Header{});
  const std::pair<mode_t, mode_t> cases[] = {
      {0600, 0400}, {0755, 0555}, {0644, 0444}, {04755, 0555}, {0700, 0500}, {0640, 0440}};
  int n = 0;
  for (auto [source_mode, copy_mode] : cases) {
    std::string src = tmp.sub("src" + std::to_string(n));
    write_file(src, "content " + std::to_string(n++), source_mode);
    std::string copy = tmp.sub("t/" + w.add_file(src, src).path);
    BOOST_TEST((stat_of(copy).st_mode & 07777) == copy_mode, std::oct << source_mode << " gave "
                                                                  << (stat_of(copy).st_mode & 07777));
  }
}

BOOST_AUTO_TEST_CASE(the_root_store_shares_copies_never_host_files) {
  TempDir tmp;
  std::string store = tmp.sub("root/.backstep-files");
  fs::create_directories(store);
  BOOST_REQUIRE(::chmod(store.c_str(), 0700) == 0);
  std::string a = tmp.sub("a.so"), b = tmp.sub("b.so"), c = tmp.sub("c.so");
  write_file(a, std::string(100000, 'a'), 0755);
  write_file(b, std::string(100000, 'a'), 0755);  // same bytes, another file
  write_file(c, std::string(100000, 'c'), 0755);

  std::string t1 = tmp.sub("root/t1"), t2 = tmp.sub("root/t2");
  StoredFile fa, fb, fc;
  {
    TraceWriter w1(t1, Header{});
    fa = w1.add_file(a, "a.so");
    fc = w1.add_file(c, "c.so");
    TraceWriter w2(t2, Header{});
    fb = w2.add_file(b, "b.so");
  }
  BOOST_TEST(fa.hash == fb.hash);
  BOOST_TEST(fa.hash != fc.hash);
  std::string ca = t1 + "/" + fa.path, cb = t2 + "/" + fb.path, cc = t1 + "/" + fc.path;
  BOOST_TEST(same_inode(ca, cb));
  BOOST_TEST(!same_inode(ca, a));
  BOOST_TEST(!same_inode(cb, b));
  BOOST_TEST(!same_inode(ca, cc));
  BOOST_TEST(stat_of(ca).st_nlink == 3u);  // t1, t2 and the store
  BOOST_TEST((stat_of(ca).st_mode & 07777) == 0555u);

  // A store entry whose bytes are not the file's (a hash collision, or an
  // entry changed by hand) is never linked: the bytes decide.
  std::string forged = tmp.sub("forged.so");
  write_file(forged, std::string(100000, 'f'), 0755);
  std::string entry;
  for (const auto& e : fs::directory_iterator(store))
    if (same_inode(e.path(), cc)) entry = e.path();
  BOOST_REQUIRE(!entry.empty());
  std::string d = tmp.sub("d.so");
  write_file(d, std::string(100000, 'c'), 0755);
  fs::remove(entry);
  fs::copy_file(forged, entry);
  BOOST_REQUIRE(::chmod(entry.c_str(), 0555) == 0);
  fs::create_hard_link(entry, tmp.sub("keep"));  // in use, so not collected
  std::string t3 = tmp.sub("root/t3");
  {
    TraceWriter w3(t3, Header{});
    StoredFile fd = w3.add_file(d, "d.so");
    BOOST_TEST(!same_inode(t3 + "/" + fd.path, entry));
    BOOST_TEST(slurp(t3 + "/" + fd.path) == slurp(d));
    BOOST_TEST(fd.hash == fc.hash);
  }

  // Entries no trace links any more go when the next recording starts.
  fs::remove_all(t1);
  fs::remove_all(t2);
  fs::remove_all(t3);
  fs::remove(tmp.sub("keep"));
  { TraceWriter w4(tmp.sub("root/t4"), Header{}); }
  BOOST_TEST(fs::is_empty(store));
}

BOOST_AUTO_TEST_CASE(a_store_others_can_write_is_not_used) {
  TempDir tmp;
  std::string store = tmp.sub("root/.backstep-files");
  fs::create_directories(store);
  BOOST_REQUIRE(::chmod(store.c_str(), 0777) == 0);
  std::string a = tmp.sub("a.so");
  write_file(a, "shared?", 0644);
  TraceWriter w(tmp.sub("root/t"), Header{});
  StoredFile f = w.add_file(a, "a.so");
  BOOST_TEST(stat_of(tmp.sub("root/t/" + f.path)).st_nlink == 1u);
  BOOST_TEST(fs::is_empty(store));
}

BOOST_AUTO_TEST_CASE(replay_refuses_a_changed_copy) {
  TempDir tmp;
  std::string src = tmp.sub("prog");
  write_file(src, std::string(20000, 'p') + "tail", 0755);
  std::string dir = tmp.sub("t");
  StoredFile f;
  {
    TraceWriter w(dir, Header{});
    f = w.add_file(src, "prog");
    w.finish();
  }
  std::string copy = dir + "/" + f.path;
  TraceReader r(dir);
  BOOST_TEST(r.verified_file_path(file_mapping(f)) == fs::absolute(copy).string());

  // The same size, other bytes: only the hash can tell. (Safe to write: the
  // copy is ours, as the first test shows.)
  BOOST_REQUIRE(stat_of(copy).st_nlink == 1u);
  BOOST_REQUIRE(::chmod(copy.c_str(), 0644) == 0);
  std::string changed = slurp(src);
  changed[100] ^= 1;
  write_file(copy, changed, 0444);
  expect_error([&] { r.verified_file_path(file_mapping(f)); },
               dir + ": trace file files/prog-0 was changed after recording: its content hash differs");
  // Back as it was: accepted again.
  BOOST_REQUIRE(::chmod(copy.c_str(), 0644) == 0);
  write_file(copy, slurp(src), 0444);
  BOOST_TEST(r.verified_file_path(file_mapping(f)) == fs::absolute(copy).string());

  BOOST_REQUIRE(::truncate(copy.c_str(), 16384) == 0);
  expect_error([&] { r.verified_file_path(file_mapping(f)); },
               "trace file files/prog-0 was changed after recording: size 16384, recorded 20004");
  // A copy that is gone is named too.
  fs::remove(copy);
  expect_error([&] { r.verified_file_path(file_mapping(f)); }, "files/prog-0: missing from the trace");
}

BOOST_AUTO_TEST_CASE(files_sums_lists_every_copy_for_a_check_up_front) {
  TempDir tmp;
  std::string a = tmp.sub("a"), b = tmp.sub("b");
  write_file(a, "alpha", 0644);
  write_file(b, std::string(5000, 'b'), 0755);
  std::string dir = tmp.sub("t");
  StoredFile fa, fb;
  {
    TraceWriter w(dir, Header{});
    fa = w.add_file(a, "a");
    fb = w.add_file(b, "b");
    w.add_file(a, "a again");  // the same file: listed once
    w.finish();
  }
  char line[128];
  std::snprintf(line, sizeof line, "%016llx 5 files/a-0\n%016llx 5000 files/b-1\n",
                static_cast<unsigned long long>(fa.hash), static_cast<unsigned long long>(fb.hash));
  BOOST_TEST(slurp(dir + "/files.sums") == line);
  TraceReader r(dir);
  r.verify_files();

  std::string copy = dir + "/" + fb.path;
  BOOST_REQUIRE(stat_of(copy).st_nlink == 1u);
  BOOST_REQUIRE(::chmod(copy.c_str(), 0644) == 0);
  write_file(copy, std::string(4999, 'b') + "c", 0444);
  expect_error([&] { r.verify_files(); }, "trace file files/b-1 was changed after recording: its content hash");
  ::truncate(copy.c_str(), 0);
  expect_error([&] { r.verify_files(); }, "trace file files/b-1 was changed after recording: size 0, recorded 5000");

  std::string sums = slurp(dir + "/files.sums");
  BOOST_REQUIRE(::chmod((dir + "/files.sums").c_str(), 0644) == 0);
  write_file(dir + "/files.sums", sums.substr(0, sums.size() - 1), 0444);  // last line cut
  expect_error([&] { r.verify_files(); }, "files.sums: line 2 is damaged");
  BOOST_REQUIRE(::chmod((dir + "/files.sums").c_str(), 0644) == 0);
  write_file(dir + "/files.sums", "zz" + sums.substr(2), 0444);
  expect_error([&] { r.verify_files(); }, "files.sums: line 1 is damaged");
  fs::remove(dir + "/files.sums");
  expect_error([&] { r.verify_files(); }, "files.sums: missing, but files/ holds copies");
}
