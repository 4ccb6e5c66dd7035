#include "common/output.h"

#include <sys/syscall.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <system_error>

#include "common/error.h"

namespace snr::output {
namespace fs = std::filesystem;

namespace {

// ---- the interrupt-cleanup table -------------------------------------------
// Fixed storage: the handler may only read memory that exists when it runs
// and call async-signal-safe functions (open, unlinkat, rmdir, ...).
constexpr int kSlots = 64;
constexpr size_t kPathMax = 4096;

struct Slot {
  std::atomic<bool> used{false};
  std::atomic<bool> armed{false};
  char path[kPathMax] = {};
};

std::array<Slot, kSlots>& slots() {
  static std::array<Slot, kSlots> table;
  return table;
}

// Removes `dir_fd`'s entries recursively (bounded depth) with raw
// getdents64, which, unlike readdir, allocates nothing: async-signal-safe.
struct LinuxDirent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[1];
};

void remove_entries(int dir_fd, int depth) {
  if (depth > 16) return;
  alignas(8) char buffer[8192];
  bool removed_any = true;
  // Removing entries while listing can skip some; list again until a pass
  // removes nothing.
  while (removed_any) {
    removed_any = false;
    lseek(dir_fd, 0, SEEK_SET);
    while (true) {
      const long n = syscall(SYS_getdents64, dir_fd, buffer, sizeof buffer);
      if (n <= 0) break;
      for (long offset = 0; offset < n;) {
        const auto* entry = reinterpret_cast<const LinuxDirent64*>(buffer + offset);
        offset += entry->d_reclen;
        const char* name = entry->d_name;
        if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) continue;
        if (unlinkat(dir_fd, name, 0) == 0) {
          removed_any = true;
          continue;
        }
        const int child = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        if (child >= 0) {
          remove_entries(child, depth + 1);
          close(child);
          if (unlinkat(dir_fd, name, AT_REMOVEDIR) == 0) removed_any = true;
        }
      }
    }
  }
}

void remove_path_signal_safe(const char* path) {
  if (unlink(path) == 0) return;
  const int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  if (fd < 0) return;
  remove_entries(fd, 0);
  close(fd);
  rmdir(path);
}

void on_interrupt(int signal_number) {
  for (Slot& slot : slots()) {
    if (slot.armed.load()) remove_path_signal_safe(slot.path);
  }
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

std::string errno_text(int error) { return std::strerror(error); }

// The directory that will hold `path`; created when missing.
fs::path ensure_parent(const fs::path& path, std::string_view option) {
  fs::path parent = path.parent_path();
  if (parent.empty()) parent = ".";
  std::error_code ec;
  if (fs::exists(parent, ec) && !fs::is_directory(parent, ec)) {
    throw Error(fmt::format("{} {}: '{}' is not a directory", option, path.string(), parent.string()));
  }
  // create_directories fails with ENOTDIR when a component is a file.
  fs::create_directories(parent, ec);
  if (ec) {
    throw Error(fmt::format("{} {}: cannot create directory '{}': {}", option, path.string(), parent.string(),
                            ec.message()));
  }
  return parent;
}

// Creates and removes a probe file: the only test that covers permissions,
// read-only mounts and quotas alike.
void probe_writable(const fs::path& dir, std::string_view option, const fs::path& shown) {
  const fs::path probe = dir / fmt::format(".snr-write-probe.{}", static_cast<long>(::getpid()));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int error = errno;
    throw Error(fmt::format("{} {}: cannot write in '{}': {}", option, shown.string(), dir.string(),
                            errno_text(error)));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

fs::path staging_beside(const fs::path& target) {
  fs::path parent = target.parent_path();
  if (parent.empty()) parent = ".";
  return parent / fmt::format(".{}.staging.{}", target.filename().string(), static_cast<long>(::getpid()));
}

fs::path normalized(fs::path path) {
  // "out/" names the directory "out", not an empty file name inside it.
  if (!path.empty() && path.filename().empty()) path = path.parent_path();
  return path;
}

}  // namespace

namespace detail {

int register_staging(const fs::path& path) {
  const std::string text = path.string();
  if (text.size() >= kPathMax) return -1;
  for (int i = 0; i < kSlots; ++i) {
    Slot& slot = slots()[static_cast<size_t>(i)];
    bool expected = false;
    if (!slot.used.compare_exchange_strong(expected, true)) continue;
    std::memcpy(slot.path, text.c_str(), text.size() + 1);
    slot.armed.store(true);
    return i;
  }
  return -1;
}

void unregister_staging(int slot_index) {
  if (slot_index < 0 || slot_index >= kSlots) return;
  Slot& slot = slots()[static_cast<size_t>(slot_index)];
  slot.armed.store(false);
  slot.used.store(false);
}

}  // namespace detail

void install_interrupt_cleanup() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGHUP, &action, nullptr);
}

void check_output_file(const fs::path& path, std::string_view option) {
  if (path.empty()) throw Error(fmt::format("{}: empty output path", option));
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    throw Error(fmt::format("{} {}: is a directory; give a file name (e.g. {}/out)", option, path.string(),
                            normalized(path).string()));
  }
  if (!path.has_filename()) throw Error(fmt::format("{} {}: expected a file name, not a directory", option, path.string()));
  const fs::path parent = ensure_parent(path, option);
  probe_writable(parent, option, path);
}

void check_output_is_not_input(const fs::path& output, const fs::path& input, std::string_view option) {
  std::error_code ec;
  if (fs::equivalent(output, input, ec) && !ec) {
    throw Error(fmt::format("{} {}: is the input file {}; writing it would replace what is being read (give another "
                            "path)",
                            option, output.string(), input.string()));
  }
}

void check_outputs_differ(const fs::path& a, std::string_view option_a, const fs::path& b, std::string_view option_b) {
  std::error_code ec_a, ec_b;
  const fs::path canonical_a = fs::weakly_canonical(a, ec_a), canonical_b = fs::weakly_canonical(b, ec_b);
  if (!ec_a && !ec_b && canonical_a == canonical_b) {
    throw Error(fmt::format("{} and {} name the same file {}: give each its own", option_a, option_b, a.string()));
  }
}

void check_output_directory(const fs::path& dir_in, std::string_view option) {
  if (dir_in.empty()) throw Error(fmt::format("{}: empty output directory", option));
  const fs::path dir = normalized(dir_in);
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    throw Error(fmt::format("{} {}: exists and is not a directory", option, dir_in.string()));
  }
  // The staging directory is created beside the target, so the parent must
  // be writable too.
  const fs::path parent = ensure_parent(dir, option);
  probe_writable(parent, option, dir_in);
  if (fs::is_directory(dir, ec)) probe_writable(dir, option, dir_in);
}

void check_output_prefix(const fs::path& prefix, std::string_view option) {
  if (prefix.empty() || !prefix.has_filename()) {
    throw Error(fmt::format("{} '{}': an output prefix needs a file-name part (e.g. out/trace writes "
                            "out/trace.0.et, ...)",
                            option, prefix.string()));
  }
  std::error_code ec;
  if (fs::is_directory(prefix, ec)) {
    throw Error(fmt::format("{} {}: is a directory; an output prefix names files (e.g. {}/trace)", option,
                            prefix.string(), prefix.string()));
  }
  const fs::path parent = ensure_parent(prefix, option);
  probe_writable(parent, option, prefix);
}

void check_output_fits(const fs::path& where, uint64_t bytes, uint64_t files, std::string_view what) {
  fs::path dir = where.parent_path().empty() ? fs::path(".") : where.parent_path();
  std::error_code ec;
  if (fs::is_directory(where, ec)) dir = where;
  struct statvfs info {};
  if (::statvfs(dir.c_str(), &info) != 0) return;  // unknown: nothing to refuse on
  const long double free_bytes = static_cast<long double>(info.f_bavail) * static_cast<long double>(info.f_frsize);
  // 10% headroom: the estimate is an extrapolation, and a full disk breaks
  // everything else on the machine too.
  if (static_cast<long double>(bytes) * 1.1L > free_bytes) {
    throw Error(fmt::format("{}: about {:.3g} GB would not fit the {:.3g} GB free in '{}'; nothing written", what,
                            static_cast<double>(bytes) / 1e9, static_cast<double>(free_bytes / 1e9L), dir.string()));
  }
  if (info.f_files > 0 && static_cast<long double>(files) * 1.1L > static_cast<long double>(info.f_favail)) {
    throw Error(fmt::format("{}: {} files would not fit the {} free inodes in '{}'; nothing written", what, files,
                            static_cast<uint64_t>(info.f_favail), dir.string()));
  }
}

// ---- StagedFile ---------------------------------------------------------------

// The staging location is a hidden directory holding the file under its
// final name: side files a writer creates next to it (SQLite journals,
// ".partial" copies) are staged, and cleaned, with it.
StagedFile::StagedFile(fs::path target) : target_(std::move(target)) {
  check_output_file(target_);
  const fs::path dir = staging_beside(target_);
  std::error_code ec;
  fs::remove_all(dir, ec);
  slot_ = detail::register_staging(dir);
  fs::create_directories(dir, ec);
  if (ec) throw Error(fmt::format("cannot create '{}': {}", dir.string(), ec.message()));
  staging_ = dir / target_.filename();
}

StagedFile::~StagedFile() {
  std::error_code ignored;
  fs::remove_all(staging_.parent_path(), ignored);
  detail::unregister_staging(slot_);
}

void StagedFile::commit() {
  std::error_code ec;
  if (!fs::exists(staging_, ec)) throw Error(fmt::format("{}: nothing was written", target_.string()));
  fs::rename(staging_, target_, ec);
  if (ec) throw Error(fmt::format("cannot move output into place at '{}': {}", target_.string(), ec.message()));
  committed_ = true;
  fs::remove_all(staging_.parent_path(), ec);
  detail::unregister_staging(slot_);
  slot_ = -1;
}

// ---- StagedDirectory ----------------------------------------------------------

StagedDirectory::StagedDirectory(fs::path target)
    : target_(normalized(std::move(target))), staging_(staging_beside(target_)) {
  check_output_directory(target_);
  std::error_code ec;
  fs::remove_all(staging_, ec);
  slot_ = detail::register_staging(staging_);
  fs::create_directories(staging_, ec);
  if (ec) throw Error(fmt::format("cannot create '{}': {}", staging_.string(), ec.message()));
}

StagedDirectory::~StagedDirectory() {
  if (!committed_) {
    std::error_code ignored;
    fs::remove_all(staging_, ignored);
  }
  detail::unregister_staging(slot_);
}

void StagedDirectory::commit() {
  std::error_code ec;
  fs::create_directories(target_, ec);
  if (ec) throw Error(fmt::format("cannot create '{}': {}", target_.string(), ec.message()));
  for (const fs::directory_entry& entry : fs::directory_iterator(staging_)) {
    const fs::path destination = target_ / entry.path().filename();
    if (fs::is_directory(destination, ec) && !fs::is_symlink(destination, ec)) fs::remove_all(destination, ec);
    fs::rename(entry.path(), destination, ec);
    if (ec) throw Error(fmt::format("cannot move output into place at '{}': {}", destination.string(), ec.message()));
  }
  fs::remove_all(staging_, ec);
  committed_ = true;
  detail::unregister_staging(slot_);
  slot_ = -1;
}

std::string shown_path_text(std::string text, const StagedDirectory& staged) {
  const std::string from = staged.path().string();
  const std::string to = staged.target().string();
  if (from.empty()) return text;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// ---- StagedPrefix -------------------------------------------------------------

namespace {
fs::path prefix_directory(const fs::path& prefix) {
  check_output_prefix(prefix);
  return prefix.parent_path().empty() ? fs::path(".") : prefix.parent_path();
}
}  // namespace

StagedPrefix::StagedPrefix(fs::path prefix)
    : prefix_(std::move(prefix)), dir_(prefix_directory(prefix_), prefix_.filename().string()) {}

StagedDirectory::StagedDirectory(fs::path target, const std::string& staging_name)
    : target_(std::move(target)),
      staging_(target_ / fmt::format(".{}.staging.{}", staging_name, static_cast<long>(::getpid()))) {
  std::error_code ec;
  fs::remove_all(staging_, ec);
  slot_ = detail::register_staging(staging_);
  fs::create_directories(staging_, ec);
  if (ec) throw Error(fmt::format("cannot create '{}': {}", staging_.string(), ec.message()));
}

}  // namespace snr::output
