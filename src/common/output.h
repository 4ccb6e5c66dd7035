// Outputs are checked before any work starts and written all or nothing.
//
// Every verb that writes something follows the same three steps:
//   1. check_output_file / check_output_directory / check_output_prefix
//      right after parsing the command line: parent directories are created,
//      and a location that cannot be written (a directory given as a file, a
//      parent that is a file, a read-only place) is a clear snr::Error before
//      minutes of work are spent;
//   2. the output is written into a staging location beside its target
//      (StagedFile, StagedDirectory, StagedPrefix);
//   3. commit() renames it into place. Until then the staging location is
//      removed by the destructor on any error, and by the SIGINT/SIGTERM
//      handler (install_interrupt_cleanup) when the user interrupts, so an
//      interrupted or failed run leaves neither partial output nor staging.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace snr::output {

// `option` names the command-line option in errors ("-o", "--perfetto").
void check_output_file(const std::filesystem::path& path, std::string_view option = "-o");
void check_output_directory(const std::filesystem::path& dir, std::string_view option = "-o");
// PREFIX of PREFIX.<rank>.et outputs: needs a file-name part and a writable
// directory.
void check_output_prefix(const std::filesystem::path& prefix, std::string_view option = "-o");

// Refuses an output path that names the input file `input` (the same file,
// by any path): writing it would replace what is being read, often the only
// copy (a recording). Nothing is checked when either does not exist yet.
void check_output_is_not_input(const std::filesystem::path& output, const std::filesystem::path& input,
                               std::string_view option = "-o");

// Refuses two outputs of one run that name the same file (by any path,
// existing or not): the one written last would replace the other.
void check_outputs_differ(const std::filesystem::path& a, std::string_view option_a, const std::filesystem::path& b,
                          std::string_view option_b);

// Refuses an output of about `bytes` bytes in `files` files that does not
// fit the free space (and free inodes) of the file system holding `where`.
// `what` describes the output in the error ("100000000 rank traces").
void check_output_fits(const std::filesystem::path& where, uint64_t bytes, uint64_t files, std::string_view what);

// Installs the SIGINT/SIGTERM handler that removes every registered staging
// location and then dies of the same signal. main() calls it once.
void install_interrupt_cleanup();

// A file written in a hidden staging directory beside `target` and renamed
// into place by commit(). For library writers that take a path (SQLite,
// Graphviz); their side files stay in the staging directory.
class StagedFile {
 public:
  explicit StagedFile(std::filesystem::path target);
  ~StagedFile();
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return staging_; }
  [[nodiscard]] const std::filesystem::path& target() const { return target_; }
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path staging_;
  int slot_ = -1;
  bool committed_ = false;
};

// A directory output built in a hidden sibling directory. commit() moves
// each top-level entry into `target` (created if missing), replacing entries
// of the same name and keeping others.
class StagedDirectory {
 public:
  explicit StagedDirectory(std::filesystem::path target);
  // Stages in a hidden folder inside an existing `target` instead (outputs
  // that are files beside others in a directory).
  StagedDirectory(std::filesystem::path target, const std::string& staging_name);
  ~StagedDirectory();
  StagedDirectory(const StagedDirectory&) = delete;
  StagedDirectory& operator=(const StagedDirectory&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return staging_; }
  [[nodiscard]] const std::filesystem::path& target() const { return target_; }
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path staging_;
  int slot_ = -1;
  bool committed_ = false;
};

// `text` (a progress line, a path) with the staging directory's name
// replaced by the target's: what the user will find once it is committed.
std::string shown_path_text(std::string text, const StagedDirectory& staged);

// Outputs named PREFIX.<anything> (rank traces, comm groups): writers use
// staged_prefix(); commit() moves every staged file to the same name beside
// PREFIX.
class StagedPrefix {
 public:
  explicit StagedPrefix(std::filesystem::path prefix);
  [[nodiscard]] std::filesystem::path staged_prefix() const { return dir_.path() / prefix_.filename(); }
  [[nodiscard]] const std::filesystem::path& staging_directory() const { return dir_.path(); }
  void commit() { dir_.commit(); }

 private:
  std::filesystem::path prefix_;
  StagedDirectory dir_;
};

namespace detail {
// Registers a path the interrupt handler removes (a directory recursively).
// Returns a slot for unregister_staging, or -1 when the table is full (the
// path is then cleaned only on ordinary exits).
int register_staging(const std::filesystem::path& path);
void unregister_staging(int slot);
}  // namespace detail

}  // namespace snr::output
